/** Who is calling: every service takes this first and scopes every query by companyId. */
export interface Tenant {
  userId: number;
  companyId: number;
  profile: string;
  super: boolean;
  sessionId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    tenant: Tenant;
  }
}
