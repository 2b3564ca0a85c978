import { newestFirstWindow, pageCount } from './audit-page.js';

describe('newestFirstWindow', () => {
  it('shows the newest events first, reading the two oldest-first pages that hold them', () => {
    expect(newestFirstWindow(45, 1, 20)).toEqual({ start: 25, end: 45, apiPages: [2, 3] });
    expect(newestFirstWindow(45, 2, 20)).toEqual({ start: 5, end: 25, apiPages: [1, 2] });
    expect(newestFirstWindow(45, 3, 20)).toEqual({ start: 0, end: 5, apiPages: [1] });
  });

  it('reads one page when the window falls on a page boundary', () => {
    expect(newestFirstWindow(40, 1, 20)).toEqual({ start: 20, end: 40, apiPages: [2] });
  });

  it('reads nothing when there is no event', () => {
    expect(newestFirstWindow(0, 1, 20)).toEqual({ start: 0, end: 0, apiPages: [] });
    expect(pageCount(0, 20)).toBe(1);
    expect(pageCount(41, 20)).toBe(3);
  });
});
