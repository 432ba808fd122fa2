import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CompanyExport, CompanyImportReport } from '@recado/contracts';
import { api, ApiError, currentToken } from './client.js';
import { downloadAuthenticated } from './privacy.js';

/** #35.4 Company export and import (docs/migration.md "Moving a company between Recado installs"). */
export const exportKeys = { all: ['company-exports'] as const };

/** The company's last exports; polled while one is queued or running. */
export const useCompanyExports = () =>
  useQuery({
    queryKey: exportKeys.all,
    queryFn: () => api.get<CompanyExport[]>('/company-exports'),
    refetchInterval: (q) =>
      q.state.data?.some((e) => e.status === 'queued' || e.status === 'running') ? 1500 : false,
  });

export function useStartCompanyExport() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<CompanyExport>('/company-exports', {}),
    onSuccess: () => void client.invalidateQueries({ queryKey: exportKeys.all }),
  });
}

export const downloadCompanyExport = (e: CompanyExport) =>
  downloadAuthenticated(`/company-exports/${e.id}/archive`, `recado-company-${e.companyId}-${e.id}.tar`);

/**
 * POST /company-imports (super user): the archive as multipart, with upload progress (0–1); answers the
 * report, or throws ApiError whose body names the file, table and line of a refused archive.
 */
export function importCompanyArchive(file: File, onProgress: (fraction: number) => void) {
  return new Promise<CompanyImportReport>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/company-imports');
    xhr.setRequestHeader('authorization', `Bearer ${currentToken() ?? ''}`);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.upload.onload = () => onProgress(1);
    xhr.onerror = () => reject(new ApiError(0, 'ERR_INTERNAL_SERVER_ERROR', 'network error'));
    xhr.onload = () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(xhr.responseText) as Record<string, unknown>;
      } catch {
        /* not JSON: the status says it */
      }
      if (xhr.status === 201) resolve(body as unknown as CompanyImportReport);
      else
        reject(
          new ApiError(
            xhr.status,
            String(body.error ?? 'ERR_INTERNAL_SERVER_ERROR'),
            String(body.message ?? xhr.statusText),
            body as never,
          ),
        );
    };
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
