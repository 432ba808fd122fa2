import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { getSocket } from './socket.js';

/**
 * Events reach a tab only while its socket is connected, and the company's rooms are joined at the
 * connection: what a page read before the socket connected (the first connection of a page load often comes
 * after the first reads) or while it was away may have missed a change. Each connection reads such queries
 * again once: those read before it, and those being read during it. Rooms joined later (a ticket list's status
 * rooms) do the same when the server confirms them (api/tickets.ts).
 */
export function RealtimeCatchUp() {
  const client = useQueryClient();
  useEffect(() => {
    const socket = getSocket();
    const onConnect = () => {
      const at = Date.now();
      void client.invalidateQueries({
        predicate: (q) =>
          q.state.fetchStatus === 'fetching' || (q.state.dataUpdatedAt > 0 && q.state.dataUpdatedAt < at),
      });
    };
    socket.on('connect', onConnect);
    return () => {
      socket.off('connect', onConnect);
    };
  }, [client]);
  return null;
}
