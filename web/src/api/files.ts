import { useMutation, useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import type { FileList, FileListEvent, FileListInput, FileListPage } from '@recado/contracts';
import { containsSearch } from '@recado/contracts';
import { api } from './client.js';
import { removeListItem, upsertListItem, useInfiniteList } from '../components/useInfiniteList.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const fileListKeys = {
  lists: () => ['fileLists', 'list'] as const,
  list: (search: string) => ['fileLists', 'list', search] as const,
};

const byName = (a: FileList, b: FileList) => {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id - b.id;
};
const matches = (key: QueryKey, f: FileList) => {
  const search = String(key[2] ?? '');
  return !search || containsSearch(f.name, search);
};

export const putFileList = (client: QueryClient, f: FileList) =>
  upsertListItem(client, fileListKeys.lists(), f, { matches, compare: byName });

/** GET /files?searchParam&pageNumber, paged while hasMore. */
export function useFileLists(search: string) {
  const searchParam = search.trim().toLowerCase();
  return useInfiniteList<FileList>({
    queryKey: fileListKeys.list(searchParam),
    fetchPage: async (pageNumber) => {
      const r = await api.get<FileListPage>('/files', { searchParam, pageNumber });
      return { items: r.files, hasMore: r.hasMore };
    },
  });
}

/** `company-{id}-file` patches the cached lists. */
export function useFileListsRealtime() {
  const client = useQueryClient();
  useCompanyEvent<FileListEvent>('file', (e) => {
    if (e.action === 'delete') removeListItem(client, fileListKeys.lists(), Number(e.fileId));
    else if (e.fileList) putFileList(client, e.fileList);
  });
}

export function useDeleteFileList() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<{ message: string }>(`/files/${id}`),
    onSuccess: (_a, id) => removeListItem(client, fileListKeys.lists(), id),
  });
}

/** An option of the form: its server id once saved, and a file chosen to upload into it. */
export interface OptionDraft {
  id?: number;
  name: string;
  file?: File | null;
}

/**
 * Saves the list and its option names, then uploads each chosen file into its option
 * (POST /files/uploadList/{id}); answers the list as it stands after the last upload.
 */
export function useSaveFileList() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (args: {
      id?: number;
      input: Omit<FileListInput, 'options'>;
      options: OptionDraft[];
    }): Promise<FileList> => {
      const body = { ...args.input, options: args.options.map((o) => ({ id: o.id, name: o.name })) };
      let saved = args.id
        ? await api.put<FileList>(`/files/${args.id}`, body)
        : await api.post<FileList>('/files', body);
      // New options come back in the order sent, after the kept ones (ids ascending).
      const fresh = saved.options.filter((o) => !args.options.some((d) => d.id === o.id));
      let next = 0;
      for (const draft of args.options) {
        const optionId = draft.id ?? fresh[next++]?.id;
        if (!draft.file || !optionId) continue;
        const form = new FormData();
        form.append('optionId', String(optionId));
        form.append('files', draft.file);
        saved = await api.post<FileList>(`/files/uploadList/${saved.id}`, form);
      }
      return saved;
    },
    onSuccess: (f) => putFileList(client, f),
  });
}

/** Where an option's stored file is served (bearer token needed: fetched, not linked). */
export const optionFileUrl = (optionId: number) => `/files/options/${optionId}/file`;
