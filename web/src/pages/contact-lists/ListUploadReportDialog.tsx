import { useTranslation } from 'react-i18next';
import type { ContactListUploadError, ContactListUploadResult } from '@recado/contracts';
import { UploadReport } from '../../components/UploadReport.js';

const FIELDS = new Set(['name', 'number', 'email']);

/** The answer of POST /contact-lists/{id}/upload: what was added or updated, and every row refused. */
export function ListUploadReportDialog({
  report,
  onClose,
}: {
  report: ContactListUploadResult | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const problem = (e: ContactListUploadError) =>
    e.error.code === 'ERR_VALIDATION'
      ? t(`contactLists.uploadErrors.${FIELDS.has(e.error.field ?? '') ? e.error.field : 'row'}`)
      : t(`contactLists.uploadErrors.${e.error.code === 'ERR_DUPLICATED_CONTACT' ? 'duplicated' : 'row'}`);
  const created = report?.created ?? 0;
  const updated = report?.updated ?? 0;
  const unchanged = report?.unchanged ?? 0;
  const failed = report?.errorBag ?? [];
  return (
    <UploadReport
      open={report !== null}
      onClose={onClose}
      testId="list-upload-report"
      title={t('contactLists.uploadReportTitle')}
      summary={t('contactLists.uploadSummary', { created, updated, unchanged, failed: failed.length })}
      summaryTestId="list-upload-summary"
      imported={created + updated + unchanged}
      // The sheet's own row numbers (the header is row 1).
      rows={failed.map((e) => ({
        row: e.row,
        name: e.name,
        number: e.number,
        code: e.error.code,
        problem: problem(e),
      }))}
      rowTestId="list-upload-error-row"
      labels={{
        table: t('contactLists.rejectedRows'),
        row: t('contactLists.row'),
        name: t('contactLists.name'),
        number: t('contactLists.number'),
        problem: t('contactLists.problem'),
      }}
    />
  );
}

export default ListUploadReportDialog;
