import { Box, CircularProgress, TableCell, TableRow, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';

/** The table row under the data: a spinner while a page loads, or "no records" when the list is empty. */
export function ListStatusRow({
  colSpan,
  loading,
  empty,
}: {
  colSpan: number;
  loading: boolean;
  empty: boolean;
}) {
  const { t } = useTranslation();
  if (!loading && !empty) return null;
  return (
    <TableRow>
      <TableCell colSpan={colSpan} sx={{ borderBottom: 'none' }}>
        <Box sx={{ display: 'flex', justifyContent: 'center', py: 2 }}>
          {loading ? (
            <CircularProgress size={24} aria-label={t('common.loading')} />
          ) : (
            <Typography color="text.secondary">{t('common.noRecords')}</Typography>
          )}
        </Box>
      </TableCell>
    </TableRow>
  );
}

export default ListStatusRow;
