// @ts-check
// How a scenario's time is split into rounds that alternate between the servers compared.

/**
 * Each scenario runs in rounds, Store and floor alternating (S F F S S F ...): a burst of background load on this
 * small machine then lands on both sides instead of skewing one. The time per side is split over the rounds.
 */
export const SECONDS_PER_SIDE = { full: 3, quick: 1 };
/**
 * Which side runs each round (0 = Store, 1 = floor, 2 = s3rver): forward, then backward (S F X X F S ...).
 * @param {number} rounds @param {number} sides @returns {number[]}
 */
export const roundOrder = (rounds, sides) => {
  const forward = Array.from({ length: sides }, (_, i) => i);
  return Array.from({ length: rounds }, (_, i) => (i % 2 === 0 ? forward : [...forward].reverse())).flat();
};
