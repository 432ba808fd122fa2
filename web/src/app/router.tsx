import { lazy, Suspense, type ReactNode } from 'react';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { FullPageSpinner, PublicOnly, RequireAuth } from './guards.js';
import { useAuth } from './auth.js';

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
const ComingSoonPage = lazy(() => import('../pages/placeholder/ComingSoonPage.js'));

const page = (node: ReactNode) => <Suspense fallback={<FullPageSpinner />}>{node}</Suspense>;

/** "/" is the admin dashboard; other profiles land on their tickets. */
function Home() {
  const { user } = useAuth();
  if (user && user.profile !== 'admin') return <Navigate to="/tickets" replace />;
  return page(<ComingSoonPage feature="dashboard" />);
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
          { path: '/quick-messages', element: soon('quickMessages') },
          { path: '/schedules', element: soon('schedules') },
          { path: '/tags', element: soon('tags') },
          { path: '/kanban', element: soon('kanban') },
          { path: '/queues', element: page(<QueuesPage />) },
          { path: '/files', element: soon('files') },
          { path: '/prompts', element: soon('prompts') },
          { path: '/queue-integration', element: soon('queueIntegration') },
          { path: '/messages-api', element: soon('messagesApi') },
          { path: '/financeiro', element: soon('invoices') },
          { path: '/announcements', element: soon('announcements') },
          { path: '/chats/:id?', element: soon('chats') },
          { path: '/contact-lists', element: soon('campaigns') },
          { path: '/contact-lists/:contactListId/contacts', element: soon('campaigns') },
          { path: '/campaigns', element: soon('campaigns') },
          { path: '/campaign/:campaignId/report', element: soon('campaigns') },
          { path: '/campaigns-config', element: soon('campaigns') },
        ],
      },
    ],
  },
  { path: '*', element: <Navigate to="/" replace /> },
]);

export function AppRouter() {
  return <RouterProvider router={router} />;
}
