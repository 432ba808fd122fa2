import '@xyflow/react/dist/style.css';
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { Link as RouterLink, useBlocker, useParams } from 'react-router';
import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Connection,
  type Edge,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  IconButton,
  Paper,
  Tooltip,
  Typography,
  useMediaQuery,
  type ButtonProps,
} from '@mui/material';
import type { SvgIconComponent } from '@mui/icons-material';
import { alpha, useTheme } from '@mui/material/styles';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import UndoIcon from '@mui/icons-material/Undo';
import RedoIcon from '@mui/icons-material/Redo';
import AccountTreeOutlinedIcon from '@mui/icons-material/AccountTreeOutlined';
import InsightsOutlinedIcon from '@mui/icons-material/InsightsOutlined';
import ScienceOutlinedIcon from '@mui/icons-material/ScienceOutlined';
import SaveOutlinedIcon from '@mui/icons-material/SaveOutlined';
import PublishOutlinedIcon from '@mui/icons-material/PublishOutlined';
import ErrorOutlineOutlinedIcon from '@mui/icons-material/ErrorOutlineOutlined';
import WarningAmberOutlinedIcon from '@mui/icons-material/WarningAmberOutlined';
import {
  FlowIssue,
  type Flow,
  type FlowIssue as FlowIssueT,
  type FlowNode,
  type FlowNodeType,
  type FlowTryAnswer,
  type FlowTryEvent,
} from '@recado/contracts';
import { ApiError } from '../../api/client.js';
import {
  startFlowTry,
  useFlow,
  useFlowStats,
  useFlowTryEvents,
  usePublishFlow,
  useUpdateFlow,
  validateFlow,
} from '../../api/flows.js';
import { useThemeMode } from '../../app/theme-mode.js';
import { useToast } from '../../app/useToast.js';
import { ConfirmationDialog } from '../../components/ConfirmationDialog.js';
import { useFlowT } from './flow-i18n.js';
import { FlowNodeView, type FlowRfNode } from './FlowNodeView.js';
import {
  DEFAULT_NODE_SIZE,
  addNode,
  connect,
  connectionProblem,
  copyNodes,
  docFromGraph,
  graphFromDoc,
  layoutDoc,
  moveNodes,
  newNode,
  nodeName,
  paste,
  removeElements,
  updateNode,
  variableSuggestions,
  type Clipboard,
  type FlowDoc,
} from './graph.js';
import {
  canRedo,
  canUndo,
  commit,
  createHistory,
  record,
  redo,
  replace,
  undo,
  type History,
} from './history.js';
import { DRAG_TYPE, NODE_META } from './node-meta.js';
import { issueText } from './node-text.js';
import { NodePanel } from './NodePanel.js';
import { Palette } from './Palette.js';
import { useFlowPickers } from './pickers.js';
import { StatsBar, defaultStatsPeriod } from './StatsBar.js';
import { TryPanel, type TryRunState } from './TryPanel.js';

/**
 * A button of the editor's bar: icon and text, or the icon alone on a narrow screen; a spinner in place of
 * the icon while `busy`; a tooltip when given.
 */
function BarButton({
  narrow,
  Icon,
  text,
  busy = false,
  tooltip,
  ...props
}: Omit<ButtonProps, 'children' | 'startIcon' | 'size'> & {
  narrow: boolean;
  Icon: SvgIconComponent;
  text: string;
  busy?: boolean;
  tooltip?: string;
  'data-testid': string;
}) {
  const button = (
    <Button
      size="small"
      startIcon={busy ? <CircularProgress size={14} color="inherit" /> : narrow ? undefined : <Icon />}
      sx={{ minWidth: 0 }}
      {...props}
    >
      {narrow ? <Icon fontSize="small" /> : text}
    </Button>
  );
  return tooltip ? <Tooltip title={tooltip}>{button}</Tooltip> : button;
}

const NODE_TYPES = { flow: FlowNodeView };
const NO_ISSUES: FlowIssueT[] = [];
/** Ctrl+C survives moving to another flow of the same tab (paste into another flow). */
let clipboard: Clipboard | null = null;

const isTyping = (target: EventTarget | null) => {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return (
    el.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) ||
    Boolean(el.closest('[role="dialog"]'))
  );
};

/** The issues of a 400 ERR_FLOW_INVALID answer (or none). */
const issuesOf = (err: unknown): FlowIssueT[] | null => {
  if (!(err instanceof ApiError) || err.code !== 'ERR_FLOW_INVALID') return null;
  const raw = (err.body as { issues?: unknown } | undefined)?.issues;
  const parsed = FlowIssue.array().safeParse(raw);
  return parsed.success ? parsed.data : [];
};

function Editor({ flow }: { flow: Flow }) {
  const { t } = useFlowT();
  const theme = useTheme();
  const { mode } = useThemeMode();
  const toast = useToast();
  const narrow = useMediaQuery(theme.breakpoints.down('md'), { noSsr: true });
  const rf = useReactFlow();
  const pickers = useFlowPickers();
  const update = useUpdateFlow();
  const publish = usePublishFlow();

  const [history, setHistory] = useState<History<FlowDoc>>(() => createHistory(docFromGraph(flow.graph)));
  const [saved, setSaved] = useState<FlowDoc>(history.present);
  const doc = history.present;
  const dirty = doc !== saved;
  const [selectedNodes, setSelectedNodes] = useState<Set<string>>(new Set());
  const [selectedEdges, setSelectedEdges] = useState<Set<string>>(new Set());
  const [measured, setMeasured] = useState<Map<string, { width: number; height: number }>>(new Map());
  const [issues, setIssues] = useState<FlowIssueT[]>([]);
  const [busy, setBusy] = useState<null | 'save' | 'publish'>(null);
  const [side, setSide] = useState<'node' | 'try'>('node');
  const [statsOn, setStatsOn] = useState(false);
  const [period, setPeriod] = useState(defaultStatsPeriod);
  const [trySession, setTrySession] = useState<FlowTryAnswer | null>(null);
  const [tryRun, setTryRun] = useState<TryRunState | null>(null);
  const [tryStarting, setTryStarting] = useState(false);
  const dragStart = useRef<FlowDoc | null>(null);
  const pasteCount = useRef(0);
  const wrapper = useRef<HTMLDivElement>(null);
  /** Events of runs not yet known to this page (the try's answer may come after its first moves). */
  const early = useRef(new Map<number, FlowTryEvent>());

  // A flow without a saved view is fitted once every node has its size (a fresh flow, an import, a conversion).
  const fitted = useRef(Boolean(flow.graph.viewport));
  useEffect(() => {
    if (fitted.current || measured.size < doc.nodes.length) return;
    fitted.current = true;
    void rf.fitView({ padding: 0.2, maxZoom: 1 });
  }, [measured, doc.nodes.length, rf]);

  const validPeriod = Boolean(period.from && period.to && period.from <= period.to);
  const stats = useFlowStats(flow.id, period, statsOn && validPeriod);
  const statsByNode = useMemo(
    () => new Map((stats.data?.nodes ?? []).map((s) => [s.nodeId, s])),
    [stats.data],
  );
  const maxDropped = useMemo(
    () => Math.max(0, ...(stats.data?.nodes ?? []).map((s) => s.dropped)),
    [stats.data],
  );

  const issuesByNode = useMemo(() => {
    const m = new Map<string, FlowIssueT[]>();
    for (const i of issues) if (i.nodeId) m.set(i.nodeId, [...(m.get(i.nodeId) ?? []), i]);
    return m;
  }, [issues]);

  // React Flow's nodes, made from the drawing; the same object while nothing about a node changes, so React
  // Flow does not measure it again.
  const cache = useRef(new WeakMap<FlowNode, { deps: unknown[]; rf: FlowRfNode }>());
  const rfNodes = useMemo<FlowRfNode[]>(
    () =>
      doc.nodes.map((node) => {
        const size = measured.get(node.id);
        const nodeIssues = issuesByNode.get(node.id) ?? NO_ISSUES;
        const live = tryRun?.nodeId === node.id && side === 'try' && Boolean(trySession);
        const s = statsOn ? (statsByNode.get(node.id) ?? null) : undefined;
        const selected = selectedNodes.has(node.id);
        const deps = [size, nodeIssues, live, s, selected, maxDropped];
        const hit = cache.current.get(node);
        if (hit && hit.deps.every((d, i) => d === deps[i])) return hit.rf;
        const rfNode: FlowRfNode = {
          id: node.id,
          type: 'flow',
          position: node.position,
          selected,
          deletable: false,
          data: { node, issues: nodeIssues, live, stats: s, maxDropped },
          ...(size ? { measured: size } : {}),
        };
        cache.current.set(node, { deps, rf: rfNode });
        return rfNode;
      }),
    [
      doc.nodes,
      measured,
      issuesByNode,
      tryRun,
      side,
      trySession,
      statsOn,
      statsByNode,
      selectedNodes,
      maxDropped,
    ],
  );
  const rfEdges = useMemo<Edge[]>(
    () =>
      doc.edges.map((e) => {
        const count = statsOn ? (statsByNode.get(e.source)?.exits[e.sourceHandle] ?? 0) : undefined;
        return {
          id: e.id,
          source: e.source,
          sourceHandle: e.sourceHandle,
          target: e.target,
          targetHandle: 'in',
          selected: selectedEdges.has(e.id),
          deletable: false,
          animated: tryRun?.nodeId === e.target && side === 'try' && Boolean(trySession),
          ...(count !== undefined ? { label: String(count), labelStyle: { fontWeight: 700 } } : {}),
          style: { strokeWidth: 2 },
        };
      }),
    [doc.edges, selectedEdges, statsOn, statsByNode, tryRun, side, trySession],
  );

  const act = useCallback((f: (d: FlowDoc) => FlowDoc, key: string | null = null) => {
    setHistory((h) => record(h, f(h.present), key));
  }, []);

  const onNodesChange = useCallback((changes: NodeChange<FlowRfNode>[]) => {
    const sizes: [string, { width: number; height: number }][] = [];
    const moves = new Map<string, { x: number; y: number }>();
    let dragEnded = false;
    let selection: Map<string, boolean> | null = null;
    for (const c of changes) {
      if (c.type === 'dimensions' && c.dimensions) sizes.push([c.id, c.dimensions]);
      else if (c.type === 'position') {
        if (c.position) moves.set(c.id, c.position);
        if (c.dragging === false) dragEnded = true;
      } else if (c.type === 'select') (selection ??= new Map()).set(c.id, c.selected);
    }
    if (sizes.length)
      setMeasured((m) => {
        const next = new Map(m);
        for (const [id, d] of sizes) next.set(id, d);
        return next;
      });
    if (selection) {
      const sel = selection;
      setSelectedNodes((s) => {
        const next = new Set(s);
        sel.forEach((on, id) => (on ? next.add(id) : next.delete(id)));
        return next;
      });
    }
    if (moves.size || dragEnded)
      setHistory((h) => {
        if (!dragStart.current) dragStart.current = h.present;
        let next = moves.size ? replace(h, moveNodes(h.present, moves)) : h;
        if (dragEnded) {
          next = commit(next, dragStart.current);
          dragStart.current = null;
        }
        return next;
      });
  }, []);

  const onEdgesChange = useCallback((changes: EdgeChange[]) => {
    const sel = changes.filter((c) => c.type === 'select');
    if (sel.length)
      setSelectedEdges((s) => {
        const next = new Set(s);
        for (const c of sel) {
          if (c.type !== 'select') continue;
          if (c.selected) next.add(c.id);
          else next.delete(c.id);
        }
        return next;
      });
  }, []);

  const onConnect = useCallback((c: Connection) => act((d) => connect(d, c)), [act]);
  const isValidConnection = useCallback(
    (c: Connection | Edge) => connectionProblem(history.present, c) === null,
    [history.present],
  );

  const texts = useMemo(
    () => ({
      message: t('defaults.message', { token: '{{firstName}}' }),
      question: t('defaults.question'),
      retry: t('defaults.retry'),
      optionA: 'A',
      optionB: 'B',
    }),
    [t],
  );
  const refs = useMemo(
    () => ({
      promptId: pickers.lists.prompt[0]?.id,
      typebotId: pickers.lists.integration.find((i) => i.kind === 'typebot')?.id,
      n8nId: pickers.lists.integration.find((i) => i.kind === 'n8n')?.id,
    }),
    [pickers.lists.prompt, pickers.lists.integration],
  );
  const place = useCallback(
    (type: FlowNodeType, position: { x: number; y: number }) => {
      const node = newNode(type, position, history.present, texts, refs);
      act((d) => addNode(d, node));
      setSelectedNodes(new Set([node.id]));
      setSelectedEdges(new Set());
      setSide('node');
    },
    [act, history.present, texts, refs],
  );

  const onDrop = (e: DragEvent) => {
    const type = e.dataTransfer.getData(DRAG_TYPE) as FlowNodeType;
    if (!type || !(type in NODE_META)) return;
    e.preventDefault();
    const p = rf.screenToFlowPosition({ x: e.clientX, y: e.clientY });
    place(type, { x: Math.round(p.x - DEFAULT_NODE_SIZE.width / 2), y: Math.round(p.y - 20) });
  };
  const addAtCenter = (type: FlowNodeType) => {
    const box = wrapper.current?.getBoundingClientRect();
    const p = box
      ? rf.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 })
      : { x: 0, y: 0 };
    // Clicks in a row cascade instead of piling nodes on one spot.
    let at = {
      x: Math.round(p.x - DEFAULT_NODE_SIZE.width / 2),
      y: Math.round(p.y - DEFAULT_NODE_SIZE.height / 2),
    };
    while (
      history.present.nodes.some(
        (n) => Math.abs(n.position.x - at.x) < 24 && Math.abs(n.position.y - at.y) < 24,
      )
    )
      at = { x: at.x + 36, y: at.y + 36 };
    place(type, at);
  };

  const doUndo = useCallback(() => setHistory((h) => undo(h)), []);
  const doRedo = useCallback(() => setHistory((h) => redo(h)), []);
  const deleteSelection = useCallback(() => {
    act((d) => removeElements(d, selectedNodes, selectedEdges));
    setSelectedNodes(new Set());
    setSelectedEdges(new Set());
  }, [act, selectedNodes, selectedEdges]);
  /** How many auto-layouts have been fitted into view (data-layouts: tests wait on it, not on time). */
  const [layouts, setLayouts] = useState(0);
  const layout = () => {
    act((d) => layoutDoc(d, measured));
    // React Flow queues a fitView asked for right after its nodes change and fits the new positions.
    void rf.fitView({ padding: 0.15, maxZoom: 1 }).then(() => setLayouts((n) => n + 1));
  };

  // Keyboard: undo/redo, copy/paste, delete — not while typing in a field (the field's own undo wins there).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target)) return;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && key === 'z') {
        e.preventDefault();
        if (e.shiftKey) doRedo();
        else doUndo();
      } else if (mod && key === 'y') {
        e.preventDefault();
        doRedo();
      } else if (mod && key === 'c') {
        const clip = copyNodes(history.present, selectedNodes);
        if (clip) {
          clipboard = clip;
          pasteCount.current = 0;
        }
      } else if (mod && key === 'v') {
        if (!clipboard) return;
        e.preventDefault();
        pasteCount.current += 1;
        const offset = 40 * pasteCount.current;
        const result = paste(history.present, clipboard, { x: offset, y: offset });
        setHistory((h) => record(h, result.doc));
        setSelectedNodes(new Set(result.ids));
        setSelectedEdges(new Set());
      } else if (key === 'delete' || key === 'backspace') {
        if (!selectedNodes.size && !selectedEdges.size) return;
        e.preventDefault();
        deleteSelection();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [doUndo, doRedo, history.present, selectedNodes, selectedEdges, deleteSelection]);

  // Leaving with unsaved changes asks first (in the app and when closing the tab).
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (!dirty) return;
    const onUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onUnload);
    return () => window.removeEventListener('beforeunload', onUnload);
  }, [dirty]);

  /** Reads the draft's issues (warnings included) after a save. */
  const refreshIssues = useCallback(async () => {
    try {
      const v = await validateFlow(flow.id);
      setIssues(v.issues);
    } catch {
      /* the list stays as it was */
    }
  }, [flow.id]);
  // What is wrong with the draft shows as soon as it opens (warnings included).
  useEffect(() => {
    void refreshIssues();
  }, [refreshIssues]);

  const save = useCallback(async (): Promise<boolean> => {
    const snapshot = history.present;
    setBusy('save');
    try {
      await update.mutateAsync({ id: flow.id, input: { graph: graphFromDoc(snapshot, rf.getViewport()) } });
      setSaved(snapshot);
      void refreshIssues();
      return true;
    } catch (err) {
      const found = issuesOf(err);
      if (found) {
        setIssues(found);
        toast.warning('flows:toasts.invalid', { count: found.filter((i) => i.severity === 'error').length });
      } else toast.error(err);
      return false;
    } finally {
      setBusy(null);
    }
  }, [history.present, update, flow.id, rf, refreshIssues, toast]);

  const onSave = async () => {
    if (await save()) toast.success('flows:toasts.saved');
  };

  const onPublish = async () => {
    if (dirty && !(await save())) return;
    setBusy('publish');
    try {
      const published = await publish.mutateAsync(flow.id);
      toast.success('flows:toasts.published', { version: published.publishedVersion ?? '' });
      void refreshIssues();
    } catch (err) {
      const found = issuesOf(err);
      if (found) {
        setIssues(found);
        toast.warning('flows:toasts.invalid', { count: found.filter((i) => i.severity === 'error').length });
      } else toast.error(err);
    } finally {
      setBusy(null);
    }
  };

  // Ctrl+S saves the draft, even from a field.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
        e.preventDefault();
        if (!busy) void onSave();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  // Try it.
  useFlowTryEvents(flow.id, Boolean(trySession) || tryStarting, (e) => {
    if (trySession && e.runId === trySession.run.id)
      setTryRun({ nodeId: e.nodeId, status: e.status, error: e.error, variables: e.variables ?? {} });
    else if (!trySession) early.current.set(e.runId, e);
  });
  const startTry = async () => {
    setSide('try');
    setTryStarting(true);
    try {
      if (dirty && !(await save())) return;
      early.current.clear();
      const answer = await startFlowTry(flow.id);
      setTrySession(answer);
      const seen = early.current.get(answer.run.id);
      setTryRun(
        seen
          ? { nodeId: seen.nodeId, status: seen.status, error: seen.error, variables: seen.variables ?? {} }
          : {
              nodeId: answer.run.currentNodeId,
              status: answer.run.status,
              variables: answer.run.variables ?? {},
            },
      );
    } catch (err) {
      const found = issuesOf(err);
      if (found) {
        setIssues(found);
        toast.warning('flows:toasts.invalid', { count: found.filter((i) => i.severity === 'error').length });
      } else toast.error(err);
    } finally {
      setTryStarting(false);
    }
  };

  const selectedNode = selectedNodes.size === 1 ? doc.nodes.find((n) => selectedNodes.has(n.id)) : undefined;
  const showPanel = side === 'try' || Boolean(selectedNode);
  const variables = useMemo(() => variableSuggestions(doc), [doc]);
  const errors = issues.filter((i) => i.severity === 'error');
  const focusNode = (id: string) => {
    const n = doc.nodes.find((x) => x.id === id);
    if (!n) return;
    setSelectedNodes(new Set([id]));
    setSide('node');
    const size = measured.get(id) ?? DEFAULT_NODE_SIZE;
    void rf.setCenter(n.position.x + size.width / 2, n.position.y + size.height / 2, {
      zoom: Math.max(rf.getZoom(), 0.9),
      duration: 300,
    });
  };
  const nameOf = (id: string) => {
    const n = doc.nodes.find((x) => x.id === id);
    return n ? nodeName(n) : id;
  };

  const tool = (label: string, icon: ReactNode, onClick: () => void, disabled = false, testId?: string) => (
    <Tooltip title={label}>
      <span>
        <IconButton
          size="small"
          aria-label={label}
          onClick={onClick}
          disabled={disabled}
          data-testid={testId}
        >
          {icon}
        </IconButton>
      </span>
    </Tooltip>
  );

  return (
    <Box
      data-testid="flow-editor"
      data-dirty={dirty ? 'true' : 'false'}
      sx={{ height: '100%', display: 'flex', flexDirection: 'column', minHeight: 0 }}
    >
      <Box
        sx={{
          display: 'flex',
          alignItems: 'center',
          flexWrap: 'wrap',
          gap: 0.75,
          px: { xs: 1, sm: 2 },
          py: 1,
          borderBottom: 1,
          borderColor: 'divider',
          bgcolor: 'background.paper',
        }}
      >
        <Tooltip title={t('editor.back')}>
          <IconButton component={RouterLink} to="/flows" size="small" aria-label={t('editor.back')}>
            <ArrowBackIcon />
          </IconButton>
        </Tooltip>
        <Box sx={{ minWidth: 0, flex: '1 1 160px' }}>
          <Typography
            variant="h6"
            component="h1"
            noWrap
            sx={{ fontWeight: 600, lineHeight: 1.2 }}
            data-testid="flow-editor-name"
          >
            {flow.name}
          </Typography>
          <Box sx={{ display: 'flex', gap: 0.75, alignItems: 'center' }}>
            <Typography variant="caption" color="text.secondary" noWrap>
              {flow.publishedVersion
                ? t('status.publishedVersion', { version: flow.publishedVersion })
                : t('status.draft')}
            </Typography>
            {dirty ? (
              <Chip
                size="small"
                color="warning"
                variant="outlined"
                label={t('editor.unsaved')}
                data-testid="flow-dirty"
                sx={{ height: 18 }}
              />
            ) : (
              <Typography variant="caption" color="text.secondary" data-testid="flow-saved">
                · {t('editor.saved')}
              </Typography>
            )}
          </Box>
        </Box>
        {tool(t('editor.undo'), <UndoIcon fontSize="small" />, doUndo, !canUndo(history), 'flow-undo')}
        {tool(t('editor.redo'), <RedoIcon fontSize="small" />, doRedo, !canRedo(history), 'flow-redo')}
        {tool(t('editor.layout'), <AccountTreeOutlinedIcon fontSize="small" />, layout, false, 'flow-layout')}
        <BarButton
          narrow={narrow}
          Icon={InsightsOutlinedIcon}
          text={t('editor.stats')}
          tooltip={t('editor.statsHelp')}
          variant={statsOn ? 'contained' : 'outlined'}
          color="secondary"
          onClick={() => setStatsOn((s) => !s)}
          data-testid="flow-stats-toggle"
          aria-pressed={statsOn}
        />
        <BarButton
          narrow={narrow}
          Icon={ScienceOutlinedIcon}
          text={t('editor.try')}
          variant={side === 'try' ? 'contained' : 'outlined'}
          onClick={() => setSide((s) => (s === 'try' ? 'node' : 'try'))}
          data-testid="flow-try-toggle"
          aria-label={t('editor.try')}
        />
        <BarButton
          narrow={narrow}
          Icon={SaveOutlinedIcon}
          text={t('editor.save')}
          busy={busy === 'save'}
          variant="outlined"
          onClick={() => void onSave()}
          disabled={Boolean(busy)}
          data-testid="flow-save"
          aria-label={t('editor.save')}
        />
        <BarButton
          narrow={narrow}
          Icon={PublishOutlinedIcon}
          text={t('editor.publish')}
          busy={busy === 'publish'}
          variant="contained"
          onClick={() => void onPublish()}
          disabled={Boolean(busy)}
          data-testid="flow-publish"
          aria-label={t('editor.publish')}
        />
      </Box>
      {statsOn ? (
        <StatsBar period={period} onPeriod={setPeriod} stats={stats.data} loading={stats.isFetching} />
      ) : null}
      <Box
        sx={{
          flex: 1,
          minHeight: 0,
          display: 'flex',
          flexDirection: narrow ? 'column' : 'row',
          position: 'relative',
        }}
      >
        <Box
          sx={{
            borderRight: narrow ? 0 : 1,
            borderBottom: narrow ? 1 : 0,
            borderColor: 'divider',
            width: narrow ? 'auto' : 200,
            bgcolor: 'background.paper',
            display: 'flex',
            flexDirection: 'column',
            minHeight: 0,
          }}
        >
          <Palette
            onAdd={addAtCenter}
            compact={narrow}
            allowed={(type) => {
              const plan = NODE_META[type].plan;
              return !plan || (plan === 'useOpenAi' ? pickers.plan.ai : pickers.plan.integrations);
            }}
          />
        </Box>
        <Box
          ref={wrapper}
          sx={{ flex: 1, minWidth: 0, minHeight: 0, position: 'relative' }}
          onDragOver={(e) => {
            if (e.dataTransfer.types.includes(DRAG_TYPE)) {
              e.preventDefault();
              e.dataTransfer.dropEffect = 'move';
            }
          }}
          onDrop={onDrop}
          data-testid="flow-canvas"
          data-layouts={layouts}
        >
          <ReactFlow<FlowRfNode, Edge>
            nodes={rfNodes}
            edges={rfEdges}
            nodeTypes={NODE_TYPES}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={onConnect}
            isValidConnection={isValidConnection}
            deleteKeyCode={null}
            colorMode={mode}
            defaultViewport={flow.graph.viewport ?? undefined}
            minZoom={0.1}
            maxZoom={2}
            onPaneClick={() => {
              setSelectedNodes(new Set());
              setSelectedEdges(new Set());
            }}
            proOptions={{ hideAttribution: true }}
            defaultEdgeOptions={{ type: 'smoothstep' }}
          >
            <Background gap={20} />
            <Controls showInteractive={false} />
            {/* The side panel takes the room at 1280 px: the minimap shows when the panel is closed. */}
            {narrow || showPanel ? null : (
              <MiniMap
                pannable
                zoomable
                nodeColor={(n) => NODE_META[(n.data as { node: FlowNode }).node.type].color}
                style={{ width: 150, height: 100 }}
              />
            )}
          </ReactFlow>
        </Box>
        {showPanel ? (
          <Paper
            square
            elevation={narrow ? 8 : 0}
            sx={{
              width: narrow ? 'auto' : 320,
              borderLeft: narrow ? 0 : 1,
              borderColor: 'divider',
              display: 'flex',
              flexDirection: 'column',
              minHeight: 0,
              ...(narrow
                ? {
                    position: 'absolute',
                    left: 0,
                    right: 0,
                    bottom: 0,
                    height: '62%',
                    zIndex: 10,
                    borderTop: 1,
                  }
                : {}),
            }}
          >
            {side === 'try' ? (
              <TryPanel
                session={trySession}
                run={tryRun}
                nodeName={nameOf}
                starting={tryStarting}
                onStart={() => void startTry()}
                onClose={() => setSide('node')}
              />
            ) : selectedNode ? (
              <NodePanel
                key={selectedNode.id}
                node={selectedNode}
                issues={issuesByNode.get(selectedNode.id) ?? []}
                variables={variables}
                pickers={pickers}
                flowId={flow.id}
                onChange={(data, key) => act((d) => updateNode(d, selectedNode.id, data), key)}
                onDelete={() => {
                  act((d) => removeElements(d, [selectedNode.id]));
                  setSelectedNodes(new Set());
                }}
                onClose={() => setSelectedNodes(new Set())}
              />
            ) : null}
          </Paper>
        ) : null}
      </Box>
      {issues.length ? (
        <Box
          data-testid="flow-issues"
          sx={{
            maxHeight: 132,
            overflowY: 'auto',
            borderTop: 1,
            borderColor: 'divider',
            bgcolor: alpha(errors.length ? theme.palette.error.main : theme.palette.warning.main, 0.06),
            px: 2,
            py: 0.75,
          }}
        >
          <Typography variant="caption" sx={{ fontWeight: 700 }}>
            {t('editor.issues', { errors: errors.length, warnings: issues.length - errors.length })}
          </Typography>
          {issues.map((i, k) => (
            <Box
              key={k}
              component="button"
              type="button"
              data-testid="flow-issue"
              data-node={i.nodeId ?? ''}
              data-code={i.code}
              onClick={() => i.nodeId && focusNode(i.nodeId)}
              sx={{
                display: 'flex',
                alignItems: 'center',
                gap: 0.75,
                width: '100%',
                border: 0,
                bgcolor: 'transparent',
                color: 'text.primary',
                textAlign: 'left',
                p: 0.25,
                cursor: i.nodeId ? 'pointer' : 'default',
                font: 'inherit',
                fontSize: 13,
                '&:hover': { textDecoration: i.nodeId ? 'underline' : 'none' },
              }}
            >
              {i.severity === 'error' ? (
                <ErrorOutlineOutlinedIcon color="error" sx={{ fontSize: 16 }} />
              ) : (
                <WarningAmberOutlinedIcon color="warning" sx={{ fontSize: 16 }} />
              )}
              {issueText(i, i.nodeId ? nameOf(i.nodeId) : t('editor.theFlow'), t)}
            </Box>
          ))}
        </Box>
      ) : null}
      <ConfirmationDialog
        open={blocker.state === 'blocked'}
        title={t('editor.leaveTitle')}
        onClose={() => blocker.reset?.()}
        onConfirm={async () => blocker.proceed?.()}
        confirmLabel={t('editor.leave')}
      >
        {t('editor.leaveMessage')}
      </ConfirmationDialog>
    </Box>
  );
}

/** /flows/:flowId — the canvas editor of one flow (admins, plan flag useFlows). */
export default function FlowEditorPage() {
  const { t } = useFlowT();
  const id = Number(useParams().flowId);
  const flow = useFlow(id);
  return flow.isLoading ? (
    <Box sx={{ display: 'grid', placeItems: 'center', height: '100%' }}>
      <CircularProgress aria-label={t('common.loading')} />
    </Box>
  ) : flow.data ? (
    <ReactFlowProvider>
      <Editor key={flow.data.id} flow={flow.data} />
    </ReactFlowProvider>
  ) : (
    <Box sx={{ p: 3 }}>
      <Alert
        severity="error"
        action={
          <Button component={RouterLink} to="/flows">
            {t('editor.back')}
          </Button>
        }
      >
        {t('editor.notFound')}
      </Alert>
    </Box>
  );
}
