import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import {
  COMPANY_ADMIN_PASSWORD,
  createCompany,
  fileBrowser,
  pageApi,
  screenshot,
  signInPage,
  until,
  type PageApi,
} from './browser.js';

const browser = fileBrowser();

const stamp = Date.now().toString(36);
/** Generous: a loaded 2-core machine builds, serves and drives browsers at once. */
const LONG = { timeout: 30_000 };
/** Seed plan 3 (Ouro) has every flag, useFlows included. */
const PLAN = 3;
const KEYWORD = `fluxo${stamp}`;

const node = (page: Page, id: string) => page.locator(`[data-testid="flow-node"][data-id="${id}"]`);
const exitHandle = (page: Page, id: string, exit: string) =>
  node(page, id).locator(`[data-testid="flow-exit"][data-exit="${exit}"]`);
const entryHandle = (page: Page, id: string) => node(page, id).locator('[data-testid="flow-entry"]');
const toast = (page: Page, text: string | RegExp) =>
  page.locator('#notistack-snackbar').filter({ hasText: text }).first();

async function centre(l: Locator) {
  const box = await l.boundingBox();
  assert.ok(box, 'element on screen');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/**
 * Drags a palette block onto the canvas (HTML5 drag and drop, with the mouse), at a fraction of the canvas'
 * width and height as it is now (the side panel that opens after a drop narrows it).
 */
async function dragFromPalette(page: Page, type: string, fx: number, fy: number) {
  const canvas = page.getByTestId('flow-canvas');
  const box = await canvas.boundingBox();
  assert.ok(box);
  const item = page.locator(`[data-testid="flow-palette-item"][data-type="${type}"]`);
  await item.dragTo(canvas, { targetPosition: { x: box.width * fx, y: box.height * fy } });
}

/** Draws an edge with the mouse: press on an exit's handle, move onto the target's entry, release. */
async function connectHandles(page: Page, from: Locator, to: Locator) {
  const a = await centre(from);
  const b = await centre(to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
  await page.mouse.move(b.x, b.y, { steps: 5 });
  await page.mouse.up();
}

/** Let transitions finish and tooltips go before a screenshot. */
async function settle(page: Page) {
  await page.mouse.move(1, 1);
  await page.waitForTimeout(400);
}

type FlowAnswer = {
  id: number;
  publishedVersion: number | null;
  graph: {
    nodes: { id: string; type: string; data: Record<string, unknown> }[];
    edges: { source: string; sourceHandle: string; target: string }[];
  };
};

/** A simulated customer starts the published flow with its keyword and answers the question. */
async function conversation(http: PageApi, whatsappId: number, number: string, name: string) {
  type Message = { fromMe: boolean; body: string };
  const said = (n: number) => `SIMFLOW${stamp}${number}${n}`.toUpperCase();
  await http.post(`/simulator/${whatsappId}/inbound`, { id: said(1), from: number, body: KEYWORD });
  await until(
    () => http.get<Message[]>(`/simulator/${whatsappId}/conversations/${number}`),
    (list) => list.some((m) => m.fromMe && m.body.includes('Como você se chama')),
    `the question to ${number}`,
  );
  await http.post(`/simulator/${whatsappId}/inbound`, { id: said(2), from: number, body: name });
}

test('flows: drag four blocks, connect them with the mouse, edit, publish, try it live, then see the stats on the canvas', async () => {
  const email = await createCompany('Fluxos', PLAN, stamp);
  const page = await browser.newPage({ width: 1280, height: 720 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    const token = await signInPage(page, { email, password: COMPANY_ADMIN_PASSWORD });
    const http = pageApi(page, token);
    const queue = await http.post<{ id: number }>('/queue', { name: `Vendas ${stamp}`, color: '#1976D2' });

    // The list (side menu entry under the plan flag) → a new flow opens in the editor. The side menu is then
    // folded to icons to give the canvas room (what an admin drawing at 1280×720 does).
    await page.goto('/tickets');
    await page.getByTestId('menu-flows').click(LONG);
    await page.getByTestId('menu-toggle').click();
    await page.locator('[data-testid="side-menu"][data-collapsed="true"]').waitFor(LONG);
    await page.getByRole('heading', { name: 'Fluxos' }).waitFor(LONG);
    await page.getByTestId('flow-add').click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('[data-field="name"]').fill(`Atendimento ${stamp}`);
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await page.getByTestId('flow-editor').waitFor(LONG);
    await node(page, 'start').waitFor(LONG);
    const flowId = Number(new URL(page.url()).pathname.split('/').pop());
    assert.ok(flowId > 0);

    // Four blocks: the start is there; three more are dragged from the palette onto the canvas.
    await dragFromPalette(page, 'message', 0.2, 0.75);
    await node(page, 'message-1').waitFor(LONG);
    await dragFromPalette(page, 'question', 0.45, 0.2);
    await node(page, 'question-1').waitFor(LONG);
    await dragFromPalette(page, 'transfer', 0.75, 0.6);
    await node(page, 'transfer-1').waitFor(LONG);
    await page.getByTestId('flow-dirty').waitFor(LONG);

    // Undo takes the last block away, redo puts it back; copy/paste makes a copy that Delete removes.
    await page.getByTestId('flow-panel-close').click();
    await page.keyboard.press('ControlOrMeta+z');
    await node(page, 'transfer-1').waitFor({ state: 'detached', ...LONG });
    await page.keyboard.press('ControlOrMeta+Shift+z');
    await node(page, 'transfer-1').waitFor(LONG);
    await node(page, 'transfer-1').locator('[data-testid="flow-node-name"]').click();
    await page.keyboard.press('ControlOrMeta+c');
    await page.keyboard.press('ControlOrMeta+v');
    await node(page, 'transfer-2').waitFor(LONG);
    await page.keyboard.press('Delete');
    await node(page, 'transfer-2').waitFor({ state: 'detached', ...LONG });
    // Auto-layout: without edges the blocks stack in one column (start first), fitted into view.
    await page.getByTestId('flow-layout').click();
    await page.locator('[data-testid="flow-canvas"][data-layouts="1"]').waitFor(LONG);

    // Exits to entries, with the mouse.
    await connectHandles(page, exitHandle(page, 'start', 'next'), entryHandle(page, 'message-1'));
    await page.locator('.react-flow__edge[data-id="e-start-next"]').waitFor(LONG);
    await connectHandles(page, exitHandle(page, 'message-1', 'next'), entryHandle(page, 'question-1'));
    await page.locator('.react-flow__edge[data-id="e-message-1-next"]').waitFor(LONG);
    await connectHandles(page, exitHandle(page, 'question-1', 'answered'), entryHandle(page, 'transfer-1'));
    await page.locator('.react-flow__edge[data-id="e-question-1-answered"]').waitFor(LONG);
    // An exit into the start node is refused (it has no entry).
    assert.equal(await node(page, 'start').locator('[data-testid="flow-entry"]').count(), 0);
    // Laid out again with its edges: one column per step, left to right.
    await page.getByTestId('flow-layout').click();
    await page.locator('[data-testid="flow-canvas"][data-layouts="2"]').waitFor(LONG);
    const xOf = async (id: string) => (await node(page, id).boundingBox())!.x;
    assert.ok((await xOf('start')) < (await xOf('message-1')));
    assert.ok((await xOf('message-1')) < (await xOf('question-1')));
    assert.ok((await xOf('question-1')) < (await xOf('transfer-1')));

    // The side panel: the start's keyword, the message, the question, the transfer's queue and note.
    await node(page, 'start').locator('[data-testid="flow-node-name"]').click();
    const panel = page.getByTestId('flow-node-panel');
    await panel.locator('[data-field="keywords"]').fill(KEYWORD);
    await panel.locator('[data-field="keywords"]').press('Enter');
    await node(page, 'message-1').locator('[data-testid="flow-node-name"]').click();
    await panel.locator('[data-field="text"]').fill('Olá! Bem-vindo à *Recado*.');
    await node(page, 'message-1').getByText('Bem-vindo').waitFor(LONG);
    await node(page, 'question-1').locator('[data-testid="flow-node-name"]').click();
    await panel.locator('[data-field="label"]').fill('Pergunta o nome');
    // An empty question text: the server refuses the save and names the node on the canvas.
    await panel.locator('[data-field="text"]').fill('');
    await panel.locator('[data-field="variable"]').fill('nome');
    await page.getByTestId('flow-save').click();
    await node(page, 'question-1').and(page.locator('[data-issues="error"]')).waitFor(LONG);
    await page.locator('[data-testid="flow-issue"][data-node="question-1"]').first().waitFor(LONG);
    await page.getByTestId('flow-dirty').waitFor(LONG);
    // The node's mark explains itself on hover (the side panel closed: the whole node in view).
    await page.getByTestId('flow-panel-close').click();
    await node(page, 'question-1').getByTestId('flow-node-issue').hover();
    await page
      .getByRole('tooltip')
      .filter({ hasText: 'Pergunta o nome: o campo “texto” está vazio ou inválido.' })
      .waitFor(LONG);
    await screenshot(page, 'flows-issues-light');
    await node(page, 'question-1').locator('[data-testid="flow-node-name"]').click();
    await panel.locator('[data-field="text"]').fill('Como você se chama?');
    // The rightmost block lies under the open panel (the layout fitted the canvas without it): closed
    // first, as a user would, so the click reaches the block and not the panel.
    await page.getByTestId('flow-panel-close').click();
    await panel.waitFor({ state: 'detached', ...LONG });
    await node(page, 'transfer-1').locator('[data-testid="flow-node-name"]').click();
    await panel.getByText('transfer-1', { exact: true }).waitFor(LONG);
    await panel.getByRole('combobox', { name: 'Fila' }).click();
    await page.getByRole('option', { name: `Vendas ${stamp}` }).click();
    await panel.locator('[data-field="note"]').fill('Cliente: {{nome}}');

    // Publish: saved, validated (no errors left on the nodes), version 1.
    await page.getByTestId('flow-publish').click();
    await toast(page, /Fluxo publicado \(versão 1\)/).waitFor(LONG);
    await page.getByTestId('flow-saved').waitFor(LONG);
    assert.equal(await page.locator('[data-testid="flow-node"][data-issues="error"]').count(), 0);
    const saved = await http.get<FlowAnswer>(`/flows/${flowId}`);
    assert.equal(saved.publishedVersion, 1);
    assert.deepEqual(saved.graph.nodes.map((n) => n.type).sort(), [
      'message',
      'question',
      'start',
      'transfer',
    ]);
    assert.deepEqual(saved.graph.edges.map((e) => `${e.source}.${e.sourceHandle}>${e.target}`).sort(), [
      'message-1.next>question-1',
      'question-1.answered>transfer-1',
      'start.next>message-1',
    ]);
    const question = saved.graph.nodes.find((n) => n.id === 'question-1')!;
    assert.equal(question.data.text, 'Como você se chama?');
    assert.equal(question.data.variable, 'nome');
    assert.equal(saved.graph.nodes.find((n) => n.id === 'transfer-1')!.data.queueId, queue.id);
    assert.deepEqual(saved.graph.nodes.find((n) => n.id === 'start')!.data.keywords, [KEYWORD]);
    await settle(page);
    await screenshot(page, 'flows-editor-light');

    // Try it: the draft runs in a simulator conversation; the question lights up, the answer ends the run.
    await page.getByTestId('flow-try-toggle').click();
    await page.getByTestId('flow-try-start').click();
    await page.getByTestId('flow-try-message').filter({ hasText: 'Bem-vindo' }).waitFor(LONG);
    await page.getByTestId('flow-try-message').filter({ hasText: 'Como você se chama?' }).waitFor(LONG);
    await node(page, 'question-1').and(page.locator('[data-live="true"]')).waitFor(LONG);
    assert.equal(await page.locator('[data-testid="flow-node"][data-live="true"]').count(), 1);
    await settle(page);
    await screenshot(page, 'flows-try-light');
    await page.getByTestId('flow-try-input').fill('Maria');
    await page.getByTestId('flow-try-send').click();
    await page.locator('[data-testid="flow-try-status"][data-status="completed"]').waitFor(LONG);
    await page.getByTestId('flow-try-variables').filter({ hasText: 'nome = Maria' }).waitFor(LONG);
    await node(page, 'question-1').and(page.locator('[data-live="false"]')).waitFor(LONG);

    // Three real conversations on the published version (the keyword starts it), then the stats on the canvas.
    const simulator = (await http.get<{ id: number; channel: string }[]>('/whatsapp')).find(
      (w) => w.channel === 'simulator',
    );
    assert.ok(simulator, 'the try made a simulator connection');
    const base = String(Date.now()).slice(-7);
    for (const [i, name] of ['Ana', 'Bruno', 'Carla'].entries())
      await conversation(http, simulator.id, `55119${base}${i}`, name);
    await until(
      () =>
        http.get<{ nodes: { nodeId: string; exits: Record<string, number> }[] }>(`/flows/${flowId}/stats`),
      (s) => (s.nodes.find((n) => n.nodeId === 'question-1')?.exits.answered ?? 0) >= 3,
      'three answered questions in the stats',
    );
    await page.getByTestId('flow-stats-toggle').click();
    await page.getByTestId('flow-stats-bar').waitFor(LONG);
    await node(page, 'question-1')
      .locator('[data-testid="flow-node-entered"]')
      .filter({ hasText: /^3$/ })
      .waitFor(LONG);
    await node(page, 'start')
      .locator('[data-testid="flow-node-entered"]')
      .filter({ hasText: /^3$/ })
      .waitFor(LONG);
    await node(page, 'question-1')
      .locator('[data-testid="flow-exit-count"][data-exit="answered"]')
      .filter({ hasText: /^3$/ })
      .waitFor(LONG);
    await node(page, 'transfer-1')
      .locator('[data-testid="flow-node-entered"]')
      .filter({ hasText: /^3$/ })
      .waitFor(LONG);
    await page.getByTestId('flow-stats-started').filter({ hasText: '3' }).waitFor(LONG);
    await settle(page);
    await screenshot(page, 'flows-stats-light');

    // Dark theme (React Flow follows the app's theme) and a narrow screen.
    await page.evaluate(() => localStorage.setItem('preferredTheme', 'dark'));
    await page.reload();
    await node(page, 'question-1').waitFor(LONG);
    assert.ok(await page.locator('.react-flow.dark').count(), 'the canvas is in dark mode');
    await page.getByTestId('flow-stats-toggle').click();
    await node(page, 'question-1')
      .locator('[data-testid="flow-node-entered"]')
      .filter({ hasText: /^3$/ })
      .waitFor(LONG);
    await settle(page);
    await screenshot(page, 'flows-stats-dark');
    await page.setViewportSize({ width: 500, height: 800 });
    await page.getByTestId('flow-palette').waitFor(LONG);
    await settle(page);
    await screenshot(page, 'flows-editor-500-dark');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test('flows list: rename, duplicate, export, import with the missing queue mapped, delete, convert the bot; unsaved changes ask before leaving; an attendant is refused', async () => {
  const attendant = { name: 'Téo Fluxos', email: `flows-user-${stamp}@e2e.local`, password: 'User@1234' };
  const email = await createCompany('FluxosLista', PLAN, stamp, undefined, [
    { ...attendant, profile: 'user' },
  ]);
  const page = await browser.newPage({ width: 1280, height: 720 });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    const token = await signInPage(page, { email, password: COMPANY_ADMIN_PASSWORD });
    const http = pageApi(page, token);
    const gone = await http.post<{ id: number }>('/queue', { name: `Antiga ${stamp}`, color: '#E53935' });
    const kept = await http.post<{ id: number }>('/queue', { name: `Nova ${stamp}`, color: '#43A047' });
    const graph = {
      nodes: [
        { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
        {
          id: 'to-queue',
          type: 'transfer',
          position: { x: 320, y: 0 },
          data: { target: 'queue', queueId: gone.id },
        },
      ],
      edges: [{ id: 'e1', source: 'start', sourceHandle: 'next', target: 'to-queue' }],
    };
    const flow = await http.post<{ id: number }>('/flows', { name: `Lista ${stamp}`, graph });
    const row = (name: string) => page.locator(`[data-testid="flow-row"][data-name="${name}"]`);

    await page.goto('/flows');
    await row(`Lista ${stamp}`).waitFor(LONG);
    await screenshot(page, 'flows-list-light');

    // Rename on the form kit's dialog.
    await row(`Lista ${stamp}`).getByRole('button', { name: 'Editar' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Renomear fluxo' }).waitFor(LONG);
    await dialog.locator('[data-field="name"]').fill(`Triagem ${stamp}`);
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await row(`Triagem ${stamp}`).waitFor(LONG);

    // Duplicate: a copy with the same drawing.
    await row(`Triagem ${stamp}`).getByTestId('flow-duplicate').click();
    await row(`Triagem ${stamp} (cópia)`).waitFor(LONG);

    // Export: a JSON file of the flow.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row(`Triagem ${stamp}`).getByTestId('flow-export').click(),
    ]);
    const path = await download.path();
    assert.ok(path);
    const file = JSON.parse(readFileSync(path, 'utf8')) as {
      format: string;
      name: string;
      graph: typeof graph;
    };
    assert.equal(file.format, 'recado-flow');
    assert.equal(file.name, `Triagem ${stamp}`);
    assert.equal(file.graph.nodes.find((n) => n.id === 'to-queue')!.data.queueId, gone.id);

    // Import after the queue it names is gone: the admin maps it to a queue of this company (nothing guessed).
    await http.delete(`/queue/${gone.id}`);
    await page.getByTestId('flow-import-file').setInputFiles(path);
    const mapping = page.getByRole('dialog');
    await mapping.getByRole('heading', { name: 'Associar o que o arquivo usa' }).waitFor(LONG);
    await mapping.getByText(`Fila nº ${gone.id} do arquivo`).first().waitFor(LONG);
    await mapping.getByRole('combobox').click();
    await page.getByRole('option', { name: `Nova ${stamp}` }).click();
    await mapping.getByRole('button', { name: 'Importar' }).click();
    await page.getByTestId('flow-editor').waitFor(LONG);
    await node(page, 'to-queue').waitFor(LONG);
    const importedId = Number(new URL(page.url()).pathname.split('/').pop());
    assert.notEqual(importedId, flow.id);
    const imported = await http.get<FlowAnswer>(`/flows/${importedId}`);
    assert.equal(imported.graph.nodes.find((n) => n.id === 'to-queue')!.data.queueId, kept.id);

    // Unsaved changes: leaving asks; staying keeps them, leaving drops them.
    await page.locator('[data-testid="flow-palette-item"][data-type="close"]').click();
    await node(page, 'close-1').waitFor(LONG);
    await page.getByTestId('flow-dirty').waitFor(LONG);
    await page.getByRole('link', { name: 'Voltar aos fluxos' }).click();
    const leave = page.getByRole('dialog');
    await leave.getByRole('heading', { name: 'Sair sem salvar?' }).waitFor(LONG);
    await leave.getByRole('button', { name: 'Cancelar' }).click();
    await leave.waitFor({ state: 'detached', ...LONG });
    await node(page, 'close-1').waitFor(LONG);
    await page.getByRole('link', { name: 'Voltar aos fluxos' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sair sem salvar' }).click();
    await page.getByTestId('flows-list').waitFor(LONG);
    assert.equal((await http.get<FlowAnswer>(`/flows/${importedId}`)).graph.nodes.length, 2);

    // Delete the copy, with its confirmation.
    await row(`Triagem ${stamp} (cópia)`).getByRole('button', { name: 'Excluir' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Excluir' }).click();
    await toast(page, 'Fluxo excluído.').waitFor(LONG);
    await row(`Triagem ${stamp} (cópia)`).waitFor({ state: 'detached', ...LONG });

    // Convert a connection's bot (greeting and queue menu) into a draft flow.
    await http.post('/whatsapp', {
      name: `Bot ${stamp}`,
      channel: 'simulator',
      greetingMessage: 'Olá! Escolha um setor:',
      queueIds: [kept.id],
    });
    await page.getByTestId('flow-convert').click();
    const convert = page.getByRole('dialog');
    await convert.getByRole('combobox').click();
    await page.getByRole('option', { name: `Bot ${stamp}` }).click();
    await convert.getByRole('button', { name: 'Converter' }).click();
    await page.getByTestId('flow-editor').waitFor(LONG);
    await node(page, 'start').waitFor(LONG);
    assert.ok((await page.getByTestId('flow-node').count()) > 1, 'the bot became more than a start node');
    await settle(page);
    await screenshot(page, 'flows-converted-light');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }

  // An attendant (not an admin): the screen is refused and nothing of it shows.
  const other = await browser.newPage({ width: 1280, height: 720 });
  try {
    await signInPage(other, attendant);
    await other.goto('/flows');
    await toast(other, 'Você não tem permissão para acessar esta página').waitFor(LONG);
    assert.equal(await other.getByTestId('flows-list').count(), 0);
    assert.equal(await other.getByTestId('menu-flows').count(), 0);
  } finally {
    await other.close();
  }
});
