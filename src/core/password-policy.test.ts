import { describe, expect, it } from 'vitest';
import { MIN_PASSWORD_LENGTH, passwordProblem } from './password-policy.js';

describe('passwordProblem', () => {
  it('accepts a long, varied password', () => {
    expect(passwordProblem('correct-Horse-42-staple', 'alice')).toBeUndefined();
  });

  it('refuses one character short of the minimum and accepts the minimum', () => {
    expect(passwordProblem('Abcdefgh12!', 'alice')).toMatch(/at least 12/);
    expect('Abcdefgh12!x'.length).toBe(MIN_PASSWORD_LENGTH);
    expect(passwordProblem('Abcdefgh12!x', 'alice')).toBeUndefined();
  });

  it('counts characters, not UTF-16 units', () => {
    // 11 emoji are 22 UTF-16 units but 11 characters.
    expect(passwordProblem('😀😁😂🤣😃😄😅😆😉😊😋', 'alice')).toMatch(/at least 12/);
  });

  it('refuses one repeated character and too few distinct characters', () => {
    expect(passwordProblem('a'.repeat(20), 'alice')).toMatch(/different characters/);
    expect(passwordProblem('abababababababab', 'alice')).toMatch(/different characters/);
    expect(passwordProblem('abcdabcdabcdabcd', 'alice')).toMatch(/different characters/);
  });

  it('refuses the username itself, any case, and a password built around a long username', () => {
    expect(passwordProblem('Operator-Team1', 'operator-team1')).toMatch(/username/);
    expect(passwordProblem('xx-operator-team1', 'operator-team1')).toMatch(/username/);
    // A short username inside a long password is fine (it would refuse half the dictionary for "bob").
    expect(passwordProblem('bob-likes-long-walks', 'bob')).toBeUndefined();
  });

  it('refuses well-known weak passwords case-insensitively', () => {
    expect(passwordProblem('Password1234', 'alice')).toMatch(/well-known/);
    expect(passwordProblem('123456789012', 'alice')).toMatch(/well-known/);
  });

  it('refuses absurdly long input', () => {
    expect(passwordProblem(`${'abcdef'.repeat(200)}`, 'alice')).toMatch(/at most/);
  });
});
