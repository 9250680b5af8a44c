// The minimum strength rule for admin passwords (created, reset and changed): long enough, not trivially
// repetitive, not the username, not a well-known weak choice. Deliberately simple: length does most of the work.

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;
/** "aaaaaaaaaaaa", "abababababab" and "112211221122" are refused: too few distinct characters. */
export const MIN_DISTINCT_CHARACTERS = 5;

/** Common choices that pass the length rule anyway (compared case-insensitively, digits and symbols kept). */
const KNOWN_WEAK = new Set([
  'password1234',
  'password12345',
  'password123456',
  'passwordpassword',
  'password1234!',
  'p@ssw0rd1234',
  'administrator',
  'administrator1',
  'admin1234567',
  'adminadmin123',
  'changeme1234',
  'changemenow!',
  'letmein12345',
  'welcome12345',
  'welcome123456',
  'qwertyuiop12',
  'qwertyuiopas',
  'qwerty123456',
  '123456789012',
  '1234567890123',
  '12345678901234',
  '1q2w3e4r5t6y',
  '1qaz2wsx3edc',
  'iloveyou1234',
  'abcdefghijkl',
  'abc123456789',
  'superman1234',
  'trustno11234',
  'monkey123456',
  'dragon123456',
  'correcthorsebatterystaple',
  'storeadmin123',
  'storepassword',
]);

/**
 * Why `password` is too weak for `username`, or undefined when it is acceptable. The reason never repeats the
 * password. Callers turn a reason into a ValidationError naming their field.
 */
export function passwordProblem(password: string, username: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  if (new Set(password).size < MIN_DISTINCT_CHARACTERS)
    return `must contain at least ${MIN_DISTINCT_CHARACTERS} different characters`;
  const lower = password.toLowerCase();
  const name = username.toLowerCase();
  // A short name ("bob") inside a long password is harmless; a long one makes the password guessable from it.
  if (lower === name || (name.length >= MIN_PASSWORD_LENGTH / 2 && lower.includes(name)))
    return 'must not contain the username';
  if (KNOWN_WEAK.has(lower)) return 'is a well-known weak password';
  return undefined;
}
