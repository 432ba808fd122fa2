import { lazy, Suspense, type ReactNode } from 'react';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { FullPageSpinner, PublicOnly, RequireAuth } from './guards.js';
import { useAuth } from './auth.js';
import { CampaignsRoute } from '../pages/campaign-settings/campaigns-access.js';

// Every screen is its own chunk, so the login route loads only what it needs.
const MainLayout = lazy(() => import('../layout/MainLayout.js'));
const LoginPage = lazy(() => import('../pages/login/LoginPage.js'));
const SignupPage = lazy(() => import('../pages/signup/SignupPage.js'));
const ForgotPasswordPage = lazy(() => import('../pages/forgot-password/ForgotPasswordPage.js'));
const UsersPage = lazy(() => import('../pages/users/UsersPage.js'));
const SettingsPage = lazy(() => import('../pages/settings/SettingsPage.js'));
const HelpsPage = lazy(() => import('../pages/helps/HelpsPage.js'));
const TodoListPage = lazy(() => import('../pages/todolist/TodoListPage.js'));
const ConnectionsPage = lazy(() => import('../pages/connections/ConnectionsPage.js'));
const SimulatorPage = lazy(() => import('../pages/simulator/SimulatorPage.js'));
const ContactsPage = lazy(() => import('../pages/contacts/ContactsPage.js'));
const TicketsPage = lazy(() => import('../pages/tickets/TicketsPage.js'));
const QueuesPage = lazy(() => import('../pages/queues/QueuesPage.js'));
const TagsPage = lazy(() => import('../pages/tags/TagsPage.js'));
const KanbanPage = lazy(() => import('../pages/kanban/KanbanPage.js'));
const QuickMessagesPage = lazy(() => import('../pages/quick-messages/QuickMessagesPage.js'));
const SchedulesPage = lazy(() => import('../pages/schedules/SchedulesPage.js'));
const ContactListsPage = lazy(() => import('../pages/contact-lists/ContactListsPage.js'));
const ContactListItemsPage = lazy(() => import('../pages/contact-lists/ContactListItemsPage.js'));
const FilesPage = lazy(() => import('../pages/files/FilesPage.js'));
const CampaignSettingsPage = lazy(() => import('../pages/campaign-settings/CampaignSettingsPage.js'));
const CampaignsPage = lazy(() => import('../pages/campaigns/CampaignsPage.js'));
const CampaignReportPage = lazy(() => import('../pages/campaigns/CampaignReportPage.js'));
const PromptsPage = lazy(() => import('../pages/prompts/PromptsPage.js'));
const QueueIntegrationsPage = lazy(() => import('../pages/queue-integrations/QueueIntegrationsPage.js'));
const ComingSoonPage = lazy(() => import('../pages/placeholder/ComingSoonPage.js'));
const DashboardPage = lazy(() => import('../pages/dashboard/DashboardPage.js'));

const page = (node: ReactNode) => <Suspense fallback={<FullPageSpinner />}>{node}</Suspense>;

/** "/" is the admin dashboard; other profiles land on their tickets. */
function Home() {
  const { user } = useAuth();
  if (user && user.profile !== 'admin') return <Navigate to="/tickets" replace />;
  return page(<DashboardPage />);
}

const soon = (feature: string) => page(<ComingSoonPage feature={feature} />);

const router = createBrowserRouter([
  {
    element: <PublicOnly />,
    children: [
      { path: '/login', element: page(<LoginPage />) },
      { path: '/signup', element: page(<SignupPage />) },
      { path: '/forgetpsw', element: page(<ForgotPasswordPage />) },
    ],
  },
  {
    element: <RequireAuth />,
    children: [
      {
        element: page(<MainLayout />),
        children: [
          { path: '/', element: <Home /> },
          { path: '/users', element: page(<UsersPage />) },
          { path: '/settings', element: page(<SettingsPage />) },
          { path: '/helps', element: page(<HelpsPage />) },
          { path: '/todolist', element: page(<TodoListPage />) },
          { path: '/tickets/:ticketId?', element: page(<TicketsPage />) },
          { path: '/connections', element: page(<ConnectionsPage />) },
          { path: '/connections/:whatsappId/simulator', element: page(<SimulatorPage />) },
          { path: '/contacts', element: page(<ContactsPage />) },
          { path: '/quick-messages', element: page(<QuickMessagesPage />) },
          { path: '/schedules', element: page(<SchedulesPage />) },
          { path: '/tags', element: page(<TagsPage />) },
          { path: '/kanban', element: page(<KanbanPage />) },
          { path: '/queues', element: page(<QueuesPage />) },
          { path: '/files', element: page(<FilesPage />) },
          { path: '/prompts', element: page(<PromptsPage />) },
          { path: '/queue-integration', element: page(<QueueIntegrationsPage />) },
          { path: '/messages-api', element: soon('messagesApi') },
          { path: '/financeiro', element: soon('invoices') },
          { path: '/announcements', element: soon('announcements') },
          { path: '/chats/:id?', element: soon('chats') },
          { path: '/contact-lists', element: <CampaignsRoute>{page(<ContactListsPage />)}</CampaignsRoute> },
          {
            path: '/contact-lists/:contactListId/contacts',
            element: <CampaignsRoute>{page(<ContactListItemsPage />)}</CampaignsRoute>,
          },
          { path: '/campaigns', element: <CampaignsRoute>{page(<CampaignsPage />)}</CampaignsRoute> },
          {
            path: '/campaign/:campaignId/report',
            element: <CampaignsRoute>{page(<CampaignReportPage />)}</CampaignsRoute>,
          },
          {
            path: '/campaigns-config',
            element: <CampaignsRoute>{page(<CampaignSettingsPage />)}</CampaignsRoute>,
          },
        ],
      },
    ],
  },
  { path: '*', element: <Navigate to="/" replace /> },
]);

export function AppRouter() {
  return <RouterProvider router={router} />;
}
