/**
 * Integration node executors (http, ai_prompt, typebot, n8n): owned by the "flownodes" work. Each lives in
 * its own file of this folder and registers itself with `registerFlowNodeExecutor` (../flow-executors.ts);
 * import it here. The engine imports this file once. A type with no executor fails its node at run time
 * (the ticket goes to people with a note).
 */
import './http-node.js';
import './automation-nodes.js';
import './consent-node.js';
