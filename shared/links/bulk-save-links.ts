// Invariant: a bulk save checks its envelope as a whole (nothing is saved when it is refused),
// then saves each record on its own through saveLink, in order: a record's failure is answered in
// its failure record with the errors appErrorsOf maps it to (an unreachable Postgres is SML006,
// as for a single save), and an unknown failure is SML001 there and logged; it never fails the
// other records.
import { AppErrorList, internalError } from '../errors/app-error.ts';
import { appErrorsOf } from '../errors/app-errors-of.ts';
import { parseBulkSaveRequest } from './link-request.ts';
import { toBulkSuccessRecord, type BulkFailureRecord, type BulkSaveResponse, type BulkSuccessRecord } from './link-response.ts';
import { saveLink, type Actor, type LinkServiceDeps } from './save-link.ts';

/** Where a record's unknown failure is reported (pino's signature). */
export interface BulkSaveLog {
  error(obj: { err: unknown; index: number }, msg: string): void;
}

export async function bulkSaveLinks(deps: LinkServiceDeps, actor: Actor, body: unknown, log: BulkSaveLog): Promise<BulkSaveResponse> {
  const parsed = parseBulkSaveRequest(body);
  if (!parsed.ok) throw new AppErrorList(parsed.errors);
  const successRecords: BulkSuccessRecord[] = [];
  const failureRecords: BulkFailureRecord[] = [];
  for (const [index, record] of parsed.value.data.entries()) {
    try {
      successRecords.push(toBulkSuccessRecord((await saveLink(deps, actor, record)).view));
    } catch (err) {
      let errors = appErrorsOf(err);
      if (errors === null) {
        log.error({ err, index }, 'bulkSave record failed unexpectedly');
        errors = [internalError()];
      }
      failureRecords.push({ index, record, errors: errors.map((e) => e.toErrorObject()) });
    }
  }
  return { successRecords, failureRecords, bulkSaveSummary: { successCount: successRecords.length, failureCount: failureRecords.length } };
}
