//! Reading NumPy's einsum subscripts (`"ij,jk->ik"`, `"...ij,...jk"`,
//! `"ii"`) into one label list per operand and one for the output, the
//! ellipsis spelled out as labels of its own, right-aligned as NumPy
//! broadcasts it.

use crate::bail;
use crate::error::Result;

/// The first label standing for an ellipsis axis: private-use code points,
/// so they never clash with the letters a user writes.
const ELLIPSIS_BASE: u32 = 0xE000;

/// The subscripts with the ellipsis expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscripts {
    /// One label per axis of each operand.
    pub inputs: Vec<Vec<char>>,
    /// One label per axis of the result.
    pub output: Vec<char>,
}

/// `subscripts` for operands of ranks `ndims`, or a `ValueError` naming what
/// does not fit.
pub fn parse(subscripts: &str, ndims: &[usize]) -> Result<Subscripts> {
    let text: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match text.split_once("->") {
        Some((_, r)) if r.contains("->") => bail!(Value: "einsum: subscripts {subscripts:?} \
            have more than one '->'"),
        Some((l, r)) => (l, Some(r)),
        None => (text.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != ndims.len() {
        bail!(Value: "einsum: subscripts {subscripts:?} name {} operand(s), got {}",
              terms.len(), ndims.len());
    }
    let mut parsed = Vec::with_capacity(terms.len());
    for (k, (term, &ndim)) in terms.iter().zip(ndims).enumerate() {
        parsed.push(term_labels(term, ndim, k)?);
    }
    let n_ell = parsed.iter().copied().max().unwrap_or(0);
    let inputs: Vec<Vec<char>> = parsed
        .iter()
        .zip(&terms)
        .map(|(&e, term)| expand(term, ellipsis_labels(n_ell, e)))
        .collect();
    let output = match rhs {
        Some(r) => explicit_output(r, &inputs, n_ell)?,
        None => implicit_output(&inputs, n_ell),
    };
    Ok(Subscripts { inputs, output })
}

/// How many axes the ellipsis of one term stands for.
fn term_labels(term: &str, ndim: usize, k: usize) -> Result<usize> {
    let letters = letters_of(term, &format!("operand {k}'s subscripts {term:?}"))?;
    let has_ellipsis = term.contains("...");
    if !has_ellipsis && letters.len() != ndim {
        bail!(Value: "einsum: operand {k} has {ndim} dimension(s) but its subscripts \
              {term:?} name {}", letters.len());
    }
    if letters.len() > ndim {
        bail!(Value: "einsum: operand {k} has {ndim} dimension(s), fewer than the {} \
              its subscripts {term:?} name", letters.len());
    }
    Ok(ndim - letters.len())
}

/// The letters of `term` (ASCII letters and at most one `...`).
fn letters_of(term: &str, what: &str) -> Result<Vec<char>> {
    let mut rest = term;
    if term.matches("...").count() > 1 {
        bail!(Value: "einsum: {what} have more than one ellipsis");
    }
    if let Some((a, b)) = term.split_once("...") {
        let mut v = letters_of(a, what)?;
        v.extend(letters_of(b, what)?);
        return Ok(v);
    }
    let mut out = Vec::with_capacity(rest.len());
    while let Some(c) = rest.chars().next() {
        if !c.is_ascii_alphabetic() {
            bail!(Value: "einsum: {what} hold {c:?}, not a letter or an ellipsis");
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Ok(out)
}

/// The labels of the last `k` of `n_ell` ellipsis axes.
fn ellipsis_labels(n_ell: usize, k: usize) -> Vec<char> {
    (n_ell - k..n_ell)
        .map(|i| char::from_u32(ELLIPSIS_BASE + i as u32).unwrap_or('\u{E000}'))
        .collect()
}

/// `term` with its ellipsis replaced by `ell`.
fn expand(term: &str, ell: Vec<char>) -> Vec<char> {
    match term.split_once("...") {
        Some((a, b)) => a.chars().chain(ell).chain(b.chars()).collect(),
        None => term.chars().collect(),
    }
}

/// The output a user wrote after `->`: letters seen in the inputs, each at
/// most once; `...` stands for every ellipsis axis (left out, they are
/// summed, as NumPy does).
fn explicit_output(rhs: &str, inputs: &[Vec<char>], n_ell: usize) -> Result<Vec<char>> {
    let letters = letters_of(rhs, &format!("the output subscripts {rhs:?}"))?;
    for (i, c) in letters.iter().enumerate() {
        if letters[..i].contains(c) {
            bail!(Value: "einsum: the output subscripts {rhs:?} name {c:?} twice");
        }
        if !inputs.iter().any(|t| t.contains(c)) {
            bail!(Value: "einsum: the output subscript {c:?} is in no operand's subscripts");
        }
    }
    Ok(expand(rhs, ellipsis_labels(n_ell, n_ell)))
}

/// NumPy's output when none is written: the ellipsis axes, then the
/// letters seen once, in alphabetical order.
fn implicit_output(inputs: &[Vec<char>], n_ell: usize) -> Vec<char> {
    let all: Vec<char> = inputs.iter().flatten().copied().collect();
    let mut once: Vec<char> = all
        .iter()
        .copied()
        .filter(|c| c.is_ascii_alphabetic() && all.iter().filter(|d| *d == c).count() == 1)
        .collect();
    once.sort_unstable();
    let mut out = ellipsis_labels(n_ell, n_ell);
    out.extend(once);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[char]) -> String {
        v.iter()
            .map(|&c| if c.is_ascii() { c } else { '*' })
            .collect()
    }

    #[test]
    fn explicit_implicit_and_ellipsis() {
        let cases: &[(&str, &[usize], &[&str], &str)] = &[
            ("ij,jk->ik", &[2, 2], &["ij", "jk"], "ik"),
            ("ji", &[2], &["ji"], "ij"),
            ("ii", &[2], &["ii"], ""),
            ("ij,jk", &[2, 2], &["ij", "jk"], "ik"),
            ("...ij,...jk->...ik", &[4, 3], &["**ij", "*jk"], "**ik"),
            ("..., ..., ... -> ...", &[1, 1, 1], &["*", "*", "*"], "*"),
            ("m...p,p...n->mn", &[4, 4], &["m**p", "p**n"], "mn"),
            ("Ba,aB", &[2, 2], &["Ba", "aB"], ""),
        ];
        for (sub, nd, ins, out) in cases {
            let p = parse(sub, nd).unwrap();
            let got: Vec<String> = p.inputs.iter().map(|t| s(t)).collect();
            assert_eq!(&got, ins, "{sub}");
            assert_eq!(s(&p.output), *out, "{sub}");
        }
    }

    #[test]
    fn errors() {
        for (sub, nd) in [
            ("mp,pn->mn", &[4usize, 4][..]),
            ("ij,jk", &[2][..]),
            ("ij->kk", &[2][..]),
            ("ij->k", &[2][..]),
            ("i.j", &[2][..]),
            ("i->i->i", &[1][..]),
            ("...i...", &[3][..]),
            ("ijk", &[2][..]),
        ] {
            assert!(parse(sub, nd).is_err(), "{sub}");
        }
    }
}
