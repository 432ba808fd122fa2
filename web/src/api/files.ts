import { containsSearch } from '@recado/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { RESOURCES, type FileList, type FileListInput } from '@recado/contracts';
import { api } from './client.js';
import { defineResource } from './resource.js';

export const fileListKeys = {
  lists: () => ['fileLists', 'list'] as const,
};

const byName = (a: FileList, b: FileList) => {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id - b.id;
};

/** File lists: GET /files?searchParam&pageNumber, `company-{id}-file`. */
export const fileListResource = defineResource<FileList>({
  spec: RESOURCES.fileList,
  listsKey: fileListKeys.lists(),
  paged: true,
  compare: byName,
  matches: (search, f) => !search || containsSearch(f.name, search),
});
const putFileList = fileListResource.put;

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
