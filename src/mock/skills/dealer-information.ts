import { success, type SkillHandler } from './skill-handler.js';

export const dealerInformation: SkillHandler = (_request, ctx) => success({ ...ctx.inventory.dealer });
