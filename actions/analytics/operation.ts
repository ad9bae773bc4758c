import type { GraphQLResolveInfo } from 'graphql';
import type { ActionContext } from '../context';
import { tenantOf } from '../api';
import { rowsAnswer, type AnalyticRequest } from './builder';
import type { Dataset } from './dataset';
import { selectedRowFields } from './selection';
import { analyticStatement } from './statements';

const PLAN_EACH_RUN = { prepare: false };

/** The handler of an analytic operation over a dataset: `{rows: [...]}`, the rows as PostgreSQL's JSON text (rowsAnswer). */
export function analyticOperation(ds: Dataset) {
  return async (args: Record<string, unknown>, ctx: ActionContext, info?: GraphQLResolveInfo) => {
    const s = analyticStatement(ds, args as AnalyticRequest, tenantOf(ctx).toLowerCase(), selectedRowFields(info));
    // A statement planned for its values runs alone; the others may be coalesced with other requests'.
    const rows = ds.planEachRun
      ? await ctx.db.query(s.text, s.params, PLAN_EACH_RUN)
      : await (ctx.read ?? ctx.db.query.bind(ctx.db))(s.text, s.params);
    return { rows: rowsAnswer(s, rows) };
  };
}
