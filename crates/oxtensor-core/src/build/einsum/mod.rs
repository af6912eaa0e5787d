//! `einsum`'s plan: the subscripts parsed (`parse`), the contraction order
//! (`path`: NumPy's optimal search when every length is known, right to
//! left otherwise) and each step as graph operations (`steps`). The plan
//! is plain data; `oxtensor.tensor.einsum` turns it into a graph of
//! existing ops (sums, Kronecker deltas, dots, transposes) inside an
//! `Einsum` op, as PyTensor's `pytensor/tensor/einsum.py` does.

pub mod parse;
pub mod path;
pub mod steps;

use crate::bail;
use crate::error::Result;
use path::{LabelSet, Problem};
pub use steps::{Action, Dot, Step, Term};

/// What `einsum(subscripts, *operands)` computes, step by step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The contraction path (positions in the list of operands left).
    pub path: Vec<Vec<usize>>,
    /// Whether the path was chosen from known lengths (or needs no
    /// choosing: at most two operands).
    pub optimized: bool,
    /// The steps, one per pairwise (or single-operand) contraction.
    pub steps: Vec<Step>,
    /// A label names a length-1 axis of one operand and a longer axis of
    /// another: the path may be worse than with distinct labels.
    pub broadcast_label: bool,
}

/// The plan of `subscripts` over operands of static shapes `shapes`
/// (`None`: a length unknown before run time).
pub fn plan(subscripts: &str, shapes: &[Vec<Option<u64>>]) -> Result<Plan> {
    if shapes.is_empty() {
        bail!(Value: "einsum: no operands given");
    }
    let ndims: Vec<usize> = shapes.iter().map(Vec::len).collect();
    let subs = parse::parse(subscripts, &ndims)?;
    let labels = Labels::new(&subs)?;
    let sizes = labels.lengths(&subs, shapes)?;
    let known = shapes.iter().flatten().all(Option::is_some);
    let n = shapes.len();
    let (path, optimized) = if known {
        let p = Problem {
            inputs: subs.inputs.iter().map(|t| labels.set(t)).collect(),
            output: labels.set(&subs.output),
            sizes: &sizes,
        };
        (pairwise(path::known_lengths_path(&p), n), true)
    } else {
        (path::right_to_left(n), n <= 2)
    };
    let terms: Vec<Term> = subs
        .inputs
        .iter()
        .zip(shapes)
        .map(|(names, dims)| Term {
            names: names.clone(),
            dims: dims.clone(),
        })
        .collect();
    let (steps, broadcast_label) = build_steps(terms, &subs.output, &path);
    Ok(Plan {
        path,
        optimized,
        steps,
        broadcast_label,
    })
}

/// `path` over `n` operands with each step of more than two operands
/// split into pairs from the right (what PyTensor does when NumPy finds
/// nothing to optimize); each pair's result goes last in the list.
fn pairwise(path: Vec<Vec<usize>>, n: usize) -> Vec<Vec<usize>> {
    let (mut len, mut out) = (n, Vec::with_capacity(path.len()));
    for step in path {
        if step.len() <= 2 {
            len = len + 1 - step.len();
            out.push(step);
            continue;
        }
        let mut left = step;
        left.sort_unstable();
        while let [.., a, b] = left[..] {
            left.truncate(left.len() - 2);
            out.push(vec![b, a]);
            len -= 1;
            left.push(len - 1);
        }
    }
    out
}

/// The steps along `path` and whether a length-1 axis met a longer one
/// under the same label.
fn build_steps(mut terms: Vec<Term>, output: &[char], path: &[Vec<usize>]) -> (Vec<Step>, bool) {
    let mut steps = Vec::with_capacity(path.len());
    let mut broadcast_label = false;
    for (k, positions) in path.iter().enumerate() {
        let mut positions = positions.clone();
        positions.sort_unstable_by(|a, b| b.cmp(a));
        let mut popped: Vec<Term> = positions.iter().map(|&p| terms.remove(p)).collect();
        let mut keep: Vec<char> = output.to_vec();
        terms.iter().for_each(|t| keep.extend(&t.names));
        let all: Vec<char> = popped.iter().flat_map(|t| t.names.clone()).collect();
        let result: Vec<char> = if k + 1 == path.len() {
            output.to_vec()
        } else {
            let mut r: Vec<char> = Vec::new();
            for &c in &all {
                if keep.contains(&c) && !r.contains(&c) {
                    r.push(c);
                }
            }
            r
        };
        let mut removed: Vec<char> = all
            .iter()
            .copied()
            .filter(|c| !result.contains(c))
            .collect();
        removed.sort_unstable();
        removed.dedup();
        let (prepare, dot, mut out) = match popped.as_mut_slice() {
            [t] => {
                let acts = steps::single(t, &removed, &result);
                (vec![acts], None, t.clone())
            }
            [l, r] => {
                let (acts, dot, out, sq) = steps::pair(l, r, &removed, &result);
                broadcast_label |= sq;
                (acts.to_vec(), Some(dot), out)
            }
            _ => unreachable!("pairwise() leaves steps of one or two operands"),
        };
        let transpose = steps::transpose(&out.names, &result);
        if let Some(perm) = &transpose {
            out.dims = perm.iter().map(|&i| out.dims[i]).collect();
            out.names = result.clone();
        }
        steps.push(Step {
            operands: positions,
            prepare,
            dot,
            transpose,
        });
        terms.push(out);
    }
    (steps, broadcast_label)
}

/// The labels of one einsum as bits.
struct Labels(Vec<char>);

impl Labels {
    fn new(subs: &parse::Subscripts) -> Result<Self> {
        let mut all: Vec<char> = Vec::new();
        for &c in subs.inputs.iter().flatten() {
            if !all.contains(&c) {
                all.push(c);
            }
        }
        if all.len() > 128 {
            bail!(Value: "einsum: {} distinct subscripts, more than the 128 supported", all.len());
        }
        Ok(Labels(all))
    }

    fn bit(&self, c: char) -> usize {
        self.0.iter().position(|&d| d == c).unwrap_or(0)
    }

    fn set(&self, term: &[char]) -> LabelSet {
        term.iter().fold(0, |a, &c| a | 1 << self.bit(c))
    }

    /// Each label's length (1 when unknown), checked for agreement: lengths
    /// other than 1 must match (length 1 broadcasts, as in NumPy).
    fn lengths(&self, subs: &parse::Subscripts, shapes: &[Vec<Option<u64>>]) -> Result<Vec<u128>> {
        let mut sizes = vec![1u128; 128];
        let mut seen: Vec<Option<(u64, usize)>> = vec![None; self.0.len()];
        for (k, (term, shape)) in subs.inputs.iter().zip(shapes).enumerate() {
            for (&c, &d) in term.iter().zip(shape) {
                let (b, Some(d)) = (self.bit(c), d) else {
                    continue;
                };
                match seen[b] {
                    Some((e, j)) if e != d && e != 1 && d != 1 => {
                        bail!(Value: "einsum: subscript {} has length {e} in operand {j} and {d} \
                              in operand {k}", show(c))
                    }
                    Some((e, _)) if e != 1 => {}
                    _ => seen[b] = Some((d, k)),
                }
                sizes[b] = sizes[b].max(u128::from(d));
            }
        }
        Ok(sizes)
    }
}

/// A label as the user wrote it (ellipsis axes as `...`).
fn show(c: char) -> String {
    if c.is_ascii() {
        format!("{c:?}")
    } else {
        "'...'".to_string()
    }
}

#[cfg(test)]
mod tests;
