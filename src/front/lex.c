/* lex.c - the lexer: turns .uir text into tokens (docs/language.md section 1).
 *
 * Line breaks are tokens (they end statements) except inside ( ) and [ ], where they are
 * ignored. Words may carry one dotted suffix (`load.4`, `atomic.add`); literals may carry
 * a type (`3:i64`). A bad character or literal yields TK_ERROR, which the parser reports
 * as E0101.
 */
#include "../uir_internal.h"
#include <ctype.h>
#include <string.h>

void lex_init(Lexer *lx, UirProgram *p)
{
	memset(lx, 0, sizeof *lx);
	lx->p = p;
	lx->s = p->src;
	lx->line = 1;
	lx->col = 1;
	if (p->srclen >= 3 && !memcmp(p->src, "\xEF\xBB\xBF", 3))
		lx->pos = 3; /* a UTF-8 byte-order mark */
}

static int peekc(Lexer *lx, size_t k)
{
	size_t i = lx->pos + k;
	return i < lx->p->srclen ? (unsigned char)lx->s[i] : -1;
}

static void advance(Lexer *lx, size_t n)
{
	for (size_t i = 0; i < n && lx->pos < lx->p->srclen; i++) {
		if (lx->s[lx->pos] == '\n') {
			lx->line++;
			lx->col = 1;
		} else {
			lx->col++;
		}
		lx->pos++;
	}
}

static bool is_word_start(int c) { return c >= 0 && (isalpha(c) || c == '_'); }
static bool is_word_char(int c) { return c >= 0 && (isalnum(c) || c == '_'); }

/* Scans `:TYPE` after a literal; returns its length (0 if none, -1 if malformed). */
static int type_suffix(Lexer *lx, size_t at)
{
	size_t i = at;
	if (i >= lx->p->srclen || lx->s[i] != ':')
		return 0;
	i++;
	size_t st = i;
	while (i < lx->p->srclen && is_word_char((unsigned char)lx->s[i]))
		i++;
	if (i == st)
		return -1;
	return (int)(i - at);
}

static Token make(Lexer *lx, TokKind k, size_t start, Loc loc, size_t len)
{
	Token t;
	t.kind = k;
	t.loc = loc;
	t.s = lx->s + start;
	t.len = (int)len;
	t.typelen = (int)len;
	return t;
}

/* Scans a number starting at the current position (after an optional '-'). */
static Token number(Lexer *lx, Loc loc)
{
	size_t start = lx->pos, i = lx->pos;
	const char *s = lx->s;
	size_t n = lx->p->srclen;
	TokKind kind = TK_INT;
	if (i < n && s[i] == '-')
		i++;
	if (i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		i += 2;
		size_t st = i;
		while (i < n && isxdigit((unsigned char)s[i]))
			i++;
		if (i == st)
			kind = TK_ERROR;
	} else {
		while (i < n && isdigit((unsigned char)s[i]))
			i++;
		if (i < n && s[i] == '.') {
			i++;
			size_t st = i;
			while (i < n && isdigit((unsigned char)s[i]))
				i++;
			if (i == st)
				kind = TK_ERROR;
			else
				kind = TK_FLOAT;
		}
		if (kind != TK_ERROR && i < n && (s[i] == 'e' || s[i] == 'E')) {
			i++;
			if (i < n && (s[i] == '+' || s[i] == '-'))
				i++;
			size_t st = i;
			while (i < n && isdigit((unsigned char)s[i]))
				i++;
			kind = i == st ? TK_ERROR : TK_FLOAT;
		}
	}
	size_t textlen = i - start;
	int suf = type_suffix(lx, i);
	if (suf < 0)
		kind = TK_ERROR;
	else
		i += (size_t)suf;
	if (i < n && (is_word_char((unsigned char)s[i]) || s[i] == '.'))
		kind = TK_ERROR; /* 12abc, 1.5.2 */
	Token t = make(lx, kind, start, loc, i - start);
	t.typelen = (int)textlen;
	advance(lx, i - start);
	return t;
}

Token lex_next(Lexer *lx)
{
	for (;;) {
		int c = peekc(lx, 0);
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			advance(lx, 1);
		} else if (c == '#') {
			while (peekc(lx, 0) != -1 && peekc(lx, 0) != '\n')
				advance(lx, 1);
		} else if (c == '\n' && lx->depth > 0) {
			advance(lx, 1);
		} else {
			break;
		}
	}
	Loc loc = { lx->line, lx->col };
	size_t start = lx->pos;
	int c = peekc(lx, 0);
	if (c == -1)
		return make(lx, TK_EOF, start, loc, 0);
	TokKind single = TK_ERROR;
	switch (c) {
	case '\n': single = TK_NEWLINE; break;
	case '(': single = TK_LPAREN; lx->depth++; break;
	case ')': single = TK_RPAREN; if (lx->depth > 0) lx->depth--; break;
	case '[': single = TK_LBRACK; lx->depth++; break;
	case ']': single = TK_RBRACK; if (lx->depth > 0) lx->depth--; break;
	case '{': single = TK_LBRACE; break;
	case '}': single = TK_RBRACE; break;
	case '=': single = TK_EQ; break;
	default: break;
	}
	if (single != TK_ERROR) {
		advance(lx, 1);
		return make(lx, single, start, loc, 1);
	}
	if (c == '"') {
		size_t i = lx->pos + 1;
		while (i < lx->p->srclen && lx->s[i] != '"' && lx->s[i] != '\n')
			i++;
		if (i >= lx->p->srclen || lx->s[i] != '"') {
			advance(lx, i - lx->pos);
			return make(lx, TK_ERROR, start, loc, i - start);
		}
		advance(lx, i + 1 - lx->pos);
		return make(lx, TK_STRING, start, loc, i + 1 - start);
	}
	if (isdigit(c) || (c == '-' && peekc(lx, 1) >= 0 && isdigit(peekc(lx, 1))))
		return number(lx, loc);
	if (c == '-' && peekc(lx, 1) == 'i' && peekc(lx, 2) == 'n' && peekc(lx, 3) == 'f' &&
	    !is_word_char(peekc(lx, 4)) && peekc(lx, 4) != '.') {
		int suf = type_suffix(lx, lx->pos + 4);
		Token t = make(lx, suf < 0 ? TK_ERROR : TK_FLOAT, start, loc, 4 + (size_t)(suf > 0 ? suf : 0));
		t.typelen = 4;
		advance(lx, (size_t)t.len);
		return t;
	}
	if (is_word_start(c)) {
		size_t i = lx->pos;
		while (is_word_char(peekc(lx, i - lx->pos)))
			i++;
		if (i < lx->p->srclen && lx->s[i] == '.') {
			size_t j = i + 1;
			while (j < lx->p->srclen && is_word_char((unsigned char)lx->s[j]))
				j++;
			if (j == i + 1) {
				advance(lx, j - lx->pos);
				return make(lx, TK_ERROR, start, loc, j - start);
			}
			i = j;
		}
		size_t wlen = i - start;
		/* inf, nan, true, false may carry a type */
		bool litword = (wlen == 3 && (!memcmp(lx->s + start, "inf", 3) || !memcmp(lx->s + start, "nan", 3))) ||
			       (wlen == 4 && !memcmp(lx->s + start, "true", 4)) ||
			       (wlen == 5 && !memcmp(lx->s + start, "false", 5));
		TokKind kind = TK_WORD;
		int suf = 0;
		if (litword) {
			suf = type_suffix(lx, i);
			if (suf < 0)
				kind = TK_ERROR;
			else
				i += (size_t)suf;
		}
		Token t = make(lx, kind, start, loc, i - start);
		t.typelen = (int)wlen;
		advance(lx, i - start);
		return t;
	}
	advance(lx, 1);
	return make(lx, TK_ERROR, start, loc, 1);
}
