import { Box, Typography } from '@mui/material';

/** A channel's numbered set-up steps in the connection form (BotFather's, Meta's), with a closing note. */
export function SetupSteps({ title, steps, note }: { title: string; steps: string[]; note?: string }) {
  return (
    <>
      <Typography variant="body2" sx={{ fontWeight: 500 }}>
        {title}
      </Typography>
      <Box component="ol" sx={{ m: 0, mt: 0.5, pl: 2.5, color: 'text.secondary', typography: 'body2' }}>
        {steps.map((s) => (
          <li key={s}>{s}</li>
        ))}
      </Box>
      {note ? (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {note}
        </Typography>
      ) : null}
    </>
  );
}
