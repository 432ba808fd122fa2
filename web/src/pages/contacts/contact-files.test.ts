import { describe, expect, test } from 'vitest';
import {
  cellValue,
  csvField,
  detectSeparator,
  parseCsvRecords,
  rowsFromCsv,
  toCsv,
} from './contact-files.js';

describe('CSV export', () => {
  test('quotes what needs quoting and neutralises formulas', () => {
    expect(csvField('Maria')).toBe('Maria');
    expect(csvField('Silva; Maria')).toBe('"Silva; Maria"');
    expect(csvField('Ana "Aninha"')).toBe('"Ana ""Aninha"""');
    expect(csvField('linha\nquebrada')).toBe('"linha\nquebrada"');
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField('a,b')).toBe('a,b');
  });

  test('writes a BOM, a header, ; separators and CRLF, and reads back the same', () => {
    const text = toCsv(
      ['Nome', 'Número', 'E-mail'],
      [
        ['José; da Silva', '5511988887777', 'jose@x.test'],
        ['Ana "A"', '5511977776666', ''],
      ],
    );
    expect(text.startsWith('\uFEFFNome;Número;E-mail\r\n')).toBe(true);
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
