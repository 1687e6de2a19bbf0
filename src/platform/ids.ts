import { v7 as uuidv7 } from 'uuid';

/** Identifiers are UUID v7 (time-ordered: good index locality), canonical lowercase. */
export const newId = (): string => uuidv7();

const UUID_V7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const isId = (value: string): boolean => UUID_V7_PATTERN.test(value);
