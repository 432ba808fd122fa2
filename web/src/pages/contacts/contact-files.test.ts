import { describe, expect, test } from 'vitest';
import { cellValue, csvHasRows, detectSeparator, parseCsvRecords, rowsFromCsv } from './contact-files.js';

describe("CSV export (the server's file)", () => {
  test('an answer with the header alone has no rows; one record is enough, quoted line breaks included', () => {
    expect(csvHasRows('\uFEFFNome;Número;E-mail\r\n')).toBe(false);
    expect(csvHasRows('Nome;Número;E-mail;"Nota\r\nlonga"\r\n')).toBe(false);
    expect(csvHasRows('')).toBe(false);
    expect(csvHasRows('Nome;Número;E-mail\r\nAna;5511988887777;\r\n')).toBe(true);
  });

  test('the import reads the export back', () => {
    const text =
      '\uFEFFNome;Número;E-mail\r\n"José; da Silva";5511988887777;jose@x.test\r\n"Ana ""A""";5511977776666;\r\n';
    expect(rowsFromCsv(text)).toEqual([
      { Nome: 'José; da Silva', Número: '5511988887777', 'E-mail': 'jose@x.test' },
      { Nome: 'Ana "A"', Número: '5511977776666', 'E-mail': '' },
    ]);
  });
});

describe('CSV import', () => {
  test('detects the separator and skips empty lines', () => {
    expect(detectSeparator('name,number\n')).toBe(',');
    expect(detectSeparator('"a;b",c;d\n')).toBe(';');
    expect(detectSeparator('name\tnumber')).toBe('\t');
    expect(rowsFromCsv('nome,numero\r\nAna,11988887777\r\n,\r\n\r\nBia,"(11) 97777-6666"')).toEqual([
      { nome: 'Ana', numero: '11988887777' },
      { nome: 'Bia', numero: '(11) 97777-6666' },
    ]);
    expect(parseCsvRecords('a;"b\nc"', ';')).toEqual([['a', 'b\nc']]);
  });

  test('spreadsheet cells give their visible value', () => {
    expect(cellValue(5511988887777)).toBe(5511988887777);
    expect(cellValue({ richText: [{ text: 'Ana ' }, { text: 'Souza' }] })).toBe('Ana Souza');
    expect(cellValue({ text: 'a@b.test', hyperlink: 'mailto:a@b.test' })).toBe('a@b.test');
    expect(cellValue({ formula: 'A1', result: 'x' })).toBe('x');
    expect(cellValue(null)).toBe('');
  });
});
