import { describe, expect, test } from 'vitest';
import { isValidCnpj, isValidCpf, isValidDocument } from './documents.js';
import { SignupInput } from './auth.js';
import { can } from './permissions.js';

describe('CPF and CNPJ', () => {
  test('accepts valid documents with or without punctuation', () => {
    expect(isValidCpf('529.982.247-25')).toBe(true);
    expect(isValidCpf('52998224725')).toBe(true);
    expect(isValidCnpj('11.222.333/0001-81')).toBe(true);
    expect(isValidDocument('11222333000181')).toBe(true);
  });
  test('rejects wrong check digits, wrong lengths and all-equal digits', () => {
    expect(isValidCpf('529.982.247-26')).toBe(false);
    expect(isValidCpf('111.111.111-11')).toBe(false);
    expect(isValidCnpj('11.222.333/0001-82')).toBe(false);
    expect(isValidCnpj('00000000000000')).toBe(false);
    expect(isValidDocument('1234567')).toBe(false);
  });
  test('signup schema stores the document as digits only', () => {
    const parsed = SignupInput.parse({
      name: 'Acme',
      email: 'A@B.com',
      phone: '(11) 99999-8888',
      document: '529.982.247-25',
      password: 'secret',
    });
    expect(parsed.document).toBe('52998224725');
    expect(parsed.phone).toBe('11999998888');
    expect(parsed.email).toBe('a@b.com');
    expect(SignupInput.safeParse({ ...parsed, document: '111.111.111-11' }).success).toBe(false);
  });
});

describe('permissions', () => {
  test('admins hold admin permissions, users do not', () => {
    expect(can({ profile: 'admin' }, 'ticket-options:deleteTicket')).toBe(true);
    expect(can({ profile: 'user' }, 'ticket-options:deleteTicket')).toBe(false);
    expect(can({ profile: 'supervisor' }, 'tickets-manager:showall')).toBe(true);
    expect(can(null, 'users:manage')).toBe(false);
  });
});
