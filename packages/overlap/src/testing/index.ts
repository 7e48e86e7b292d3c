/** Test helpers for users of overlap: fakes and stream fixtures. */
export {};
