import type { GraphQLResolveInfo } from 'graphql';
import type { ActionContext } from '../context';
import { query, tenantOf } from '../api';
import { buildQuery, rowsOf, type AnalyticRequest } from './builder';
import type { Dataset } from './dataset';
import { selectedRowFields } from './selection';

/** The handler of an analytic operation over a dataset: `{rows: [...]}`. */
export function analyticOperation(ds: Dataset) {
  return async (args: Record<string, unknown>, ctx: ActionContext, info?: GraphQLResolveInfo) => {
    const built = buildQuery(ds, args as AnalyticRequest, tenantOf(ctx).toLowerCase(), selectedRowFields(info));
    return { rows: rowsOf(built, await query(ctx.db, built.fragment)) };
  };
}
