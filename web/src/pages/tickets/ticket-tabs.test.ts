import { describe, expect, test } from 'vitest';
import { tabOf } from './TicketManager.js';

describe('the list a ticket is in', () => {
  test('a reopened (open) ticket is under Atendendo, a pending one under Aguardando, a closed one in Resolvidos', () => {
    expect(tabOf('open')).toEqual({ tab: 'open', openTab: 'open' });
    expect(tabOf('pending')).toEqual({ tab: 'open', openTab: 'pending' });
    expect(tabOf('closed')).toEqual({ tab: 'closed' });
  });
});
