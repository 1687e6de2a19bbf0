import { z } from 'zod';
import { messages } from '../messages.js';

// Checks without a message of their own (mostly the operator API) still answer in Portuguese,
// naming the field: "limits.pixPerHour inválido."
z.config({
  customError: (issue) => {
    const path = (issue.path ?? []).join('.');
    return path ? messages.fieldInvalid(path) : messages.bodyInvalid;
  },
});
