import { z } from 'zod';

/** How settings refer to one of the org's secrets, e.g. `bot_token_secret: "SLACK_BOT_TOKEN"`. */
export const secretNameSchema = z
  .string()
  .regex(
    /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/,
    'must start with a letter and hold only letters, digits, "_", "." and "-" (at most 64)',
  )
  .describe("The name of one of the org's secrets (PUT /api/admin/secrets/{name})");
