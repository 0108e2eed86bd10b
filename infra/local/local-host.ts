/**
 * Loopback address every local stand-in binds to and advertises in its endpoint. Stand-ins
 * listen on port 0 and report the port the OS gave them, so no port is ever picked ahead of
 * binding it (another process could take it in between).
 */
export const LOCAL_HOST = '127.0.0.1';
