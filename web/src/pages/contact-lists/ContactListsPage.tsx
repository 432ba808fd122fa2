import { Link as RouterLink } from 'react-router';
import { Chip, IconButton, Link, Tooltip } from '@mui/material';
import PeopleOutlinedIcon from '@mui/icons-material/PeopleOutlined';
import { useTranslation } from 'react-i18next';
import { can, type ContactList } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { contactListResource } from '../../api/contact-lists.js';
import { ResourceListPage, type ResourceColumn } from '../../components/ResourceListPage.js';
import { ContactListDialog } from './ContactListDialog.js';

/** Contact lists (docs/campaigns.md): search, infinite scroll, add/rename, delete, open a list's items. */
export default function ContactListsPage() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const manage = can(user, 'admin-menu:view') || Boolean(user?.super);
  const columns: ResourceColumn<ContactList>[] = [
    {
      header: t('contactLists.name'),
      cell: (l) => (
        <Link
          component={RouterLink}
          to={`/contact-lists/${l.id}/contacts`}
          underline="hover"
          color="text.primary"
          sx={{ fontWeight: 500 }}
        >
          {l.name}
        </Link>
      ),
    },
    {
      header: t('contactLists.contactsCount'),
      align: 'center',
      headSx: { width: 140 },
      cell: (l) => (
        <Chip size="small" variant="outlined" label={l.contactsCount} data-testid="contacts-count" />
      ),
    },
  ];
  return (
    <ResourceListPage
      resource={contactListResource}
      i18n="contactLists"
      columns={columns}
      testIds={{ list: 'contact-lists', row: 'contact-list-row', add: 'contact-list-add' }}
      canManage={manage}
      actionsWidth={150}
      extraActions={(l) => (
        <Tooltip title={t('contactLists.openItems')}>
          <IconButton
            size="small"
            component={RouterLink}
            to={`/contact-lists/${l.id}/contacts`}
            aria-label={t('contactLists.openItems')}
          >
            <PeopleOutlinedIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      )}
      deleteTitle={{ value: (l) => l.name }}
      renderDialog={(d) => <ContactListDialog open={d.open} list={d.record} onClose={d.onClose} />}
    />
  );
}
