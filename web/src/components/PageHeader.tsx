import type { ReactNode } from 'react';
import { Box, Stack, Typography } from '@mui/material';

/** Title of a screen (with an optional count) and its tools at the right: search, add button... */
export function PageHeader({
  title,
  count,
  children,
}: {
  title: ReactNode;
  count?: number;
  children?: ReactNode;
}) {
  return (
    <Box
      sx={{
        display: 'flex',
        flexWrap: 'wrap',
        alignItems: 'center',
        justifyContent: 'space-between',
        gap: 1.5,
      }}
    >
      <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }}>
        {title}
        {count !== undefined ? (
          <Typography component="span" color="text.secondary" sx={{ ml: 1, fontSize: '0.9em' }}>
            ({count})
          </Typography>
        ) : null}
      </Typography>
      {children ? (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
          {children}
        </Stack>
      ) : null}
    </Box>
  );
}

export default PageHeader;
