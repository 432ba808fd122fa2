/**
 * What the API answers in place of a stored secret (access tokens, app secrets, API keys, service
 * accounts): the secret itself never leaves the server. Sent back unchanged on an update, it means
 * "keep the stored one".
 */
export const SECRET_MASK = '********';
