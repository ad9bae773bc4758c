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
    return { rows: rowsAnswer(s, await ctx.db.query(s.text, s.params, ds.planEachRun ? PLAN_EACH_RUN : undefined)) };
  };
}
