import { describe, expect, test } from 'vitest';
import { homeFor, landingFor, loginPathFor, safeNext } from './landing.js';

const admin = { profile: 'admin' as const };
const agent = { profile: 'user' as const };
const at = (pathname: string, search = '', hash = '') => ({ pathname, search, hash });

describe('landing after login', () => {
  test('admins land on the dashboard, everyone else on the tickets', () => {
    expect(homeFor(admin)).toBe('/');
    expect(homeFor(agent)).toBe('/tickets');
    expect(homeFor({ profile: 'supervisor' })).toBe('/tickets');
  });

  test('a deep link opened signed out goes through the login and comes back', () => {
    expect(loginPathFor(at('/contacts'))).toBe('/login?next=%2Fcontacts');
    expect(loginPathFor(at('/tickets/abc', '?x=1&y=2', '#m5'))).toBe(
      '/login?next=%2Ftickets%2Fabc%3Fx%3D1%26y%3D2%23m5',
    );
    const next = new URL(
      loginPathFor(at('/contacts', '?searchParam=jo%C3%A3o')),
      'http://x',
    ).searchParams.get('next');
    expect(landingFor(admin, next)).toBe('/contacts?searchParam=jo%C3%A3o');
    expect(landingFor(agent, '/contact-lists/3/contacts')).toBe('/contact-lists/3/contacts');
  });

  test('"/" and the public pages are not remembered', () => {
    expect(loginPathFor(at('/'))).toBe('/login');
    for (const next of ['/', '/login', '/login?next=%2Fx', '/signup', '/forgetpsw', null, undefined, ''])
      expect(landingFor(agent, next)).toBe('/tickets');
  });

  test('no open redirect: anything that could leave the site lands home', () => {
    for (const next of [
      'https://evil.example/contacts',
      '//evil.example/contacts',
      '///evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      'javascript:alert(1)',
      'contacts',
      ' /contacts',
      `/${'a'.repeat(3000)}`,
    ]) {
      expect(safeNext(next), JSON.stringify(next)).toBeNull();
      expect(landingFor(admin, next)).toBe('/');
      expect(landingFor(agent, next)).toBe('/tickets');
    }
  });

  test('a safe path comes back normalised, on this origin', () => {
    expect(safeNext('/contacts/../users')).toBe('/users');
    expect(safeNext('/a b')).toBe('/a%20b');
  });
});
