/** Who is calling: every service takes this first and scopes every query by companyId. */
export interface Tenant {
  userId: number;
  companyId: number;
  profile: string;
  super: boolean;
  sessionId: string;
  /** Set when the caller came with a personal or company API token (`sessionId` is then `pat-{id}`). */
  apiToken?: { id: number; kind: 'user' | 'company'; scope: 'read' | 'write' | 'admin' };
}

declare module 'fastify' {
  interface FastifyRequest {
    tenant: Tenant;
  }
}
