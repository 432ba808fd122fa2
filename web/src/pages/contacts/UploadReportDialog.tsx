import { useTranslation } from 'react-i18next';
import type { ContactUploadError, ContactUploadResult } from '@recado/contracts';
import { UploadReport } from '../../components/UploadReport.js';

const FIELDS = new Set(['name', 'number', 'email']);

/** Why one row was not imported, in the user's language. */
function useProblemText() {
  const { t } = useTranslation();
  return (e: ContactUploadError) => {
    if (e.error.code === 'ERR_VALIDATION')
      return t(`contacts.uploadErrors.${FIELDS.has(e.error.field ?? '') ? e.error.field : 'row'}`);
    return t(`errors.${e.error.code}`, { defaultValue: e.error.message });
  };
}

/** The answer of POST /contacts/upload: how many were created, and every row that was not. */
export function UploadReportDialog({
  report,
  onClose,
}: {
  report: ContactUploadResult | null;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const problem = useProblemText();
  const created = report?.newContacts.length ?? 0;
  const failed = report?.errorBag ?? [];
  return (
    <UploadReport
      open={report !== null}
      onClose={onClose}
      testId="upload-report"
      title={t('contacts.uploadReportTitle')}
      summary={
        failed.length
          ? t('contacts.uploadSummary', { created, failed: failed.length })
          : t('contacts.uploadAllGood', { created })
      }
      imported={created}
      // The answer counts the data rows from 1; in the sheet, under its header, each is one further down.
      rows={failed.map((e) => ({
        row: e.row + 1,
        name: e.contactName,
        number: e.number,
        code: e.error.code,
        problem: problem(e),
      }))}
      rowTestId="upload-error-row"
      labels={{
        table: t('contacts.uploadErrorsTitle'),
        row: t('contacts.row'),
        name: t('contacts.name'),
        number: t('contacts.number'),
        problem: t('contacts.problem'),
      }}
    />
  );
}

export default UploadReportDialog;
