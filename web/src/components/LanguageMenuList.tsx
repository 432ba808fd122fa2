import { ListItemIcon, ListItemText, Menu, MenuItem } from '@mui/material';
import CheckIcon from '@mui/icons-material/Check';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language } from '@recado/contracts';

/** The open language menu; its own chunk, so the public pages load the menu only when it is opened. */
export default function LanguageMenuList({
  anchor,
  current,
  onClose,
  onChoose,
}: {
  anchor: HTMLElement | null;
  current: string;
  onClose: () => void;
  onChoose: (lang: Language) => void;
}) {
  const { t } = useTranslation();
  return (
    <Menu
      anchorEl={anchor}
      open={Boolean(anchor)}
      onClose={onClose}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
      transformOrigin={{ vertical: 'top', horizontal: 'right' }}
    >
      {LANGUAGES.map((lang) => (
        <MenuItem
          key={lang}
          selected={lang === current}
          data-testid={`language-${lang}`}
          onClick={() => onChoose(lang)}
        >
          <ListItemIcon>{lang === current && <CheckIcon fontSize="small" />}</ListItemIcon>
          <ListItemText>{t(`layout.languages.${lang}`)}</ListItemText>
        </MenuItem>
      ))}
    </Menu>
  );
}
