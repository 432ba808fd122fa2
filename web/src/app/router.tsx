import { lazy, Suspense, type ReactNode } from 'react';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { FullPageSpinner, PlanRoute, PublicOnly, RequireAuth, SuperRoute } from './guards.js';
import { useAuth } from './auth.js';
import { can } from '@recado/contracts';
import { homeFor } from './landing.js';
import { CampaignsRoute } from '../pages/campaign-settings/campaigns-access.js';
import { FlowsRoute } from '../pages/flows/flows-access.js';
// The audit screen's texts are registered up front: opened directly, its lazy chunk could otherwise
// add them while i18next initialises and the page would wait on a namespace it never sees loaded.
import '../pages/audit/audit-i18n.js';

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
const MacrosPage = lazy(() => import('../pages/macros/MacrosPage.js'));
const AnnouncementsPage = lazy(() => import('../pages/announcements/AnnouncementsPage.js'));
const SchedulesPage = lazy(() => import('../pages/schedules/SchedulesPage.js'));
const ContactListsPage = lazy(() => import('../pages/contact-lists/ContactListsPage.js'));
const ContactListItemsPage = lazy(() => import('../pages/contact-lists/ContactListItemsPage.js'));
const FilesPage = lazy(() => import('../pages/files/FilesPage.js'));
const CampaignSettingsPage = lazy(() => import('../pages/campaign-settings/CampaignSettingsPage.js'));
const CampaignsPage = lazy(() => import('../pages/campaigns/CampaignsPage.js'));
const CampaignReportPage = lazy(() => import('../pages/campaigns/CampaignReportPage.js'));
const PromptsPage = lazy(() => import('../pages/prompts/PromptsPage.js'));
const MessagesApiPage = lazy(() => import('../pages/messages-api/MessagesApiPage.js'));
const ApiTokensPage = lazy(() => import('../pages/api-tokens/ApiTokensPage.js'));
const QueueIntegrationsPage = lazy(() => import('../pages/queue-integrations/QueueIntegrationsPage.js'));
const ChatsPage = lazy(() => import('../pages/chats/ChatsPage.js'));
const InvoicesPage = lazy(() => import('../pages/financeiro/InvoicesPage.js'));
const DashboardPage = lazy(() => import('../pages/dashboard/DashboardPage.js'));
const LivePage = lazy(() => import('../pages/live/LivePage.js'));
const SlaPage = lazy(() => import('../pages/sla/SlaPage.js'));
const AuditLogPage = lazy(() => import('../pages/audit/AuditLogPage.js'));
const CustomFieldsPage = lazy(() => import('../pages/custom-fields/CustomFieldsPage.js'));
const ClosingReasonsPage = lazy(() => import('../pages/closing/ClosingReasonsPage.js'));
const FlowsPage = lazy(() => import('../pages/flows/FlowsPage.js'));
const FlowEditorPage = lazy(() => import('../pages/flows/FlowEditorPage.js'));

const page = (node: ReactNode) => <Suspense fallback={<FullPageSpinner />}>{node}</Suspense>;

/** "/" is the admin dashboard (the menu's first entry); other profiles go to their home (landing.ts). */
function Home() {
  const { user } = useAuth();
  if (user && user.profile !== 'admin') return <Navigate to={homeFor(user)} replace />;
  return page(<DashboardPage />);
}

/** #30.8 The live view: admins and supervisors (the server answers others 403 anyway). */
function Live() {
  const { user } = useAuth();
  if (user && !can(user, 'live:view') && !user.super) return <Navigate to={homeFor(user)} replace />;
  return page(<LivePage />);
}

/** #30.5 Admin screens (the server answers others 403 anyway): others go home. */
function AdminOnly({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  if (user && user.profile !== 'admin' && !user.super) return <Navigate to={homeFor(user)} replace />;
  return <>{children}</>;
}

/** An unknown address: home when signed in, else the login. */
function Fallback() {
  const { user, loading } = useAuth();
  if (loading) return <FullPageSpinner />;
  return <Navigate to={user ? homeFor(user) : '/login'} replace />;
}

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
          { path: '/macros', element: page(<MacrosPage />) },
          {
            path: '/schedules',
            element: <PlanRoute flag="useSchedules">{page(<SchedulesPage />)}</PlanRoute>,
          },
          { path: '/tags', element: page(<TagsPage />) },
          { path: '/kanban', element: <PlanRoute flag="useKanban">{page(<KanbanPage />)}</PlanRoute> },
          { path: '/queues', element: page(<QueuesPage />) },
          { path: '/sla', element: <AdminOnly>{page(<SlaPage />)}</AdminOnly> },
          { path: '/audit-log', element: <AdminOnly>{page(<AuditLogPage />)}</AdminOnly> },
          { path: '/custom-fields', element: <AdminOnly>{page(<CustomFieldsPage />)}</AdminOnly> },
          { path: '/closing-reasons', element: <AdminOnly>{page(<ClosingReasonsPage />)}</AdminOnly> },
          { path: '/live', element: <Live /> },
          {
            path: '/flows',
            element: (
              <PlanRoute flag="useFlows">
                <FlowsRoute>{page(<FlowsPage />)}</FlowsRoute>
              </PlanRoute>
            ),
          },
          {
            path: '/flows/:flowId',
            element: (
              <PlanRoute flag="useFlows">
                <FlowsRoute>{page(<FlowEditorPage />)}</FlowsRoute>
              </PlanRoute>
            ),
          },
          { path: '/files', element: page(<FilesPage />) },
          { path: '/prompts', element: <PlanRoute flag="useOpenAi">{page(<PromptsPage />)}</PlanRoute> },
          {
            path: '/queue-integration',
            element: <PlanRoute flag="useIntegrations">{page(<QueueIntegrationsPage />)}</PlanRoute>,
          },
          {
            path: '/messages-api',
            element: <PlanRoute flag="useExternalApi">{page(<MessagesApiPage />)}</PlanRoute>,
          },
          { path: '/tokens', element: page(<ApiTokensPage />) },
          { path: '/financeiro', element: page(<InvoicesPage />) },
          {
            path: '/announcements',
            element: <SuperRoute>{page(<AnnouncementsPage />)}</SuperRoute>,
          },
          {
            path: '/chats/:id?',
            element: <PlanRoute flag="useInternalChat">{page(<ChatsPage />)}</PlanRoute>,
          },
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
  { path: '*', element: <Fallback /> },
]);

export function AppRouter() {
  return <RouterProvider router={router} />;
}
