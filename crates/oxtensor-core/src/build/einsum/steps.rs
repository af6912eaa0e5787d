//! One contraction step of an einsum as the graph operations that do it,
//! PyTensor's recipe (after JAX's): squeeze length-1 axes whose label is
//! longer on the other operand, sum labels only one operand has, reduce
//! repeated labels against a Kronecker delta, then one generalised dot
//! (batch labels kept, shared labels contracted) and a transpose into the
//! step's result order.

/// An operation on one operand, axes counted in its current order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Drop these length-1 axes.
    Squeeze(Vec<usize>),
    /// Sum over these axes.
    Sum(Vec<usize>),
    /// Zero the elements off the diagonal of these axes (which share a
    /// label), then sum over them all, or all but the last with `keep`.
    Diagonal {
        /// The axes with the repeated label, ascending.
        axes: Vec<usize>,
        /// Keep the last of them (the label lives on).
        keep: bool,
    },
}

/// The generalised dot of a two-operand step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dot {
    /// Which prepared operand goes first (0 or 1); the other is second.
    pub first: usize,
    /// The contracted axes of the first and of the second operand.
    pub axes: [Vec<usize>; 2],
    /// The batch axes (kept, aligned) of the first and of the second.
    pub batch: [Vec<usize>; 2],
}

/// One step: pop `operands` (positions in the current list, in this
/// order), prepare each, dot them when there are two, transpose, and push
/// the result at the end of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The positions popped, in popping order (descending).
    pub operands: Vec<usize>,
    /// The actions on each popped operand, in order.
    pub prepare: Vec<Vec<Action>>,
    /// The product of two prepared operands.
    pub dot: Option<Dot>,
    /// The final axis order, when not already the result's.
    pub transpose: Option<Vec<usize>>,
}

/// An operand while planning: its labels and static lengths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// One label per axis.
    pub names: Vec<char>,
    /// One static length per axis (`None`: unknown).
    pub dims: Vec<Option<u64>>,
}

impl Term {
    fn count(&self, c: char) -> usize {
        self.names.iter().filter(|&&d| d == c).count()
    }

    fn position(&self, c: char) -> Option<usize> {
        self.names.iter().position(|&d| d == c)
    }

    fn keep_axes(&mut self, keep: impl Fn(usize) -> bool) {
        let kept: Vec<usize> = (0..self.names.len()).filter(|&i| keep(i)).collect();
        self.names = kept.iter().map(|&i| self.names[i]).collect();
        self.dims = kept.iter().map(|&i| self.dims[i]).collect();
    }

    /// Sums the labels in `uniques` away.
    fn sum(&mut self, uniques: &[char]) -> Option<Action> {
        let axes: Vec<usize> = (0..self.names.len())
            .filter(|&i| uniques.contains(&self.names[i]))
            .collect();
        if axes.is_empty() {
            return None;
        }
        self.keep_axes(|i| !axes.contains(&i));
        Some(Action::Sum(axes))
    }

    /// Reduces each repeated label to its diagonal, keeping one axis for
    /// the labels in `keep`.
    fn diagonals(&mut self, keep: &[char]) -> Vec<Action> {
        let mut labels: Vec<char> = Vec::new();
        for &c in &self.names {
            if !labels.contains(&c) && self.count(c) > 1 {
                labels.push(c);
            }
        }
        let mut actions = Vec::new();
        for c in labels {
            let axes: Vec<usize> = (0..self.names.len())
                .filter(|&i| self.names[i] == c)
                .collect();
            let kept = keep.contains(&c);
            let last = *axes.last().expect("a repeated label has axes");
            let dim = axes.iter().filter_map(|&i| self.dims[i]).max();
            self.keep_axes(|i| !axes.contains(&i) || (kept && i == last));
            if let Some(i) = kept.then(|| self.position(c)).flatten() {
                self.dims[i] = dim;
            }
            actions.push(Action::Diagonal { axes, keep: kept });
        }
        actions
    }

    /// Drops length-1 axes whose label `other` has at a length not known
    /// to be 1 (they would broadcast, but a dot needs equal lengths).
    fn squeeze_against(&mut self, other: &Term) -> Option<Action> {
        let drop: Vec<usize> = (0..self.names.len())
            .filter(|&i| {
                self.dims[i] == Some(1)
                    && other
                        .position(self.names[i])
                        .is_some_and(|j| other.dims[j] != Some(1))
            })
            .collect();
        if drop.is_empty() {
            return None;
        }
        self.keep_axes(|i| !drop.contains(&i));
        Some(Action::Squeeze(drop))
    }
}

/// The step contracting one operand into `result`.
pub fn single(term: &mut Term, removed: &[char], result: &[char]) -> Vec<Action> {
    let uniques: Vec<char> = removed
        .iter()
        .copied()
        .filter(|&c| term.count(c) == 1)
        .collect();
    let mut actions: Vec<Action> = term.sum(&uniques).into_iter().collect();
    actions.extend(term.diagonals(result));
    actions
}

/// The step contracting `lhs` and `rhs` into `result`: their actions, the
/// dot, the labels of its output, and whether a length-1 axis was
/// squeezed (a label used for lengths 1 and n, which can make the path
/// worse than it could be).
pub fn pair(
    lhs: &mut Term,
    rhs: &mut Term,
    removed: &[char],
    result: &[char],
) -> ([Vec<Action>; 2], Dot, Term, bool) {
    let mut acts: [Vec<Action>; 2] = [Vec::new(), Vec::new()];
    acts[0].extend(lhs.squeeze_against(rhs));
    acts[1].extend(rhs.squeeze_against(lhs));
    let squeezed = !acts[0].is_empty() || !acts[1].is_empty();
    let only = |a: &Term, b: &Term| -> Vec<char> {
        removed
            .iter()
            .copied()
            .filter(|&c| a.count(c) == 1 && b.count(c) == 0)
            .collect()
    };
    let (lu, ru) = (only(lhs, rhs), only(rhs, lhs));
    acts[0].extend(lhs.sum(&lu));
    acts[1].extend(rhs.sum(&ru));
    let keep_l: Vec<char> = result.iter().chain(&rhs.names).copied().collect();
    acts[0].extend(lhs.diagonals(&keep_l));
    let keep_r: Vec<char> = result.iter().chain(&lhs.names).copied().collect();
    acts[1].extend(rhs.diagonals(&keep_r));
    let (dot, out) = dot(lhs, rhs, removed, result);
    (acts, dot, out, squeezed)
}

/// The generalised dot of two prepared operands (each label at most once
/// in each), and the labels and lengths of its output.
fn dot(lhs: &Term, rhs: &Term, removed: &[char], result: &[char]) -> (Dot, Term) {
    let in_both = |c: &char| lhs.position(*c).is_some() && rhs.position(*c).is_some();
    let contracted: Vec<char> = removed.iter().copied().filter(in_both).collect();
    let batch: Vec<char> = result.iter().copied().filter(in_both).collect();
    let rest = |t: &Term| -> Vec<usize> {
        (0..t.names.len())
            .filter(|&i| !contracted.contains(&t.names[i]) && !batch.contains(&t.names[i]))
            .collect()
    };
    let (rest_l, rest_r) = (rest(lhs), rest(rhs));
    // rhs first when that already gives the result's order (no transpose).
    let order_rl: Vec<char> = batch
        .iter()
        .copied()
        .chain(rest_r.iter().map(|&i| rhs.names[i]))
        .chain(rest_l.iter().map(|&i| lhs.names[i]))
        .collect();
    let first = usize::from(order_rl == result);
    let (a, b, rest_a, rest_b) = if first == 1 {
        (rhs, lhs, &rest_r, &rest_l)
    } else {
        (lhs, rhs, &rest_l, &rest_r)
    };
    let at = |t: &Term, labels: &[char]| -> Vec<usize> {
        labels.iter().filter_map(|&c| t.position(c)).collect()
    };
    let mut out = Term {
        names: batch.clone(),
        dims: batch
            .iter()
            .map(|&c| {
                let (x, y) = (
                    a.dims[a.position(c).unwrap_or(0)],
                    b.dims[b.position(c).unwrap_or(0)],
                );
                x.filter(|&n| n != 1).or(y)
            })
            .collect(),
    };
    for (t, r) in [(a, rest_a), (b, rest_b)] {
        out.names.extend(r.iter().map(|&i| t.names[i]));
        out.dims.extend(r.iter().map(|&i| t.dims[i]));
    }
    let dot = Dot {
        first,
        axes: [at(a, &contracted), at(b, &contracted)],
        batch: [at(a, &batch), at(b, &batch)],
    };
    (dot, out)
}

/// The axis order taking `names` to `result`, `None` when they agree.
pub fn transpose(names: &[char], result: &[char]) -> Option<Vec<usize>> {
    if names == result {
        return None;
    }
    Some(
        result
            .iter()
            .map(|c| names.iter().position(|d| d == c).unwrap_or(0))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(names: &str, dims: &[Option<u64>]) -> Term {
        Term {
            names: names.chars().collect(),
            dims: dims.to_vec(),
        }
    }

    #[test]
    fn trace_and_diagonal() {
        let mut t = term("ii", &[Some(3), Some(3)]);
        let acts = single(&mut t, &['i'], &[]);
        assert_eq!(
            acts,
            vec![Action::Diagonal {
                axes: vec![0, 1],
                keep: false
            }]
        );
        assert!(t.names.is_empty());
        let mut t = term("iij", &[None, None, Some(2)]);
        let acts = single(&mut t, &['j'], &['i']);
        assert_eq!(
            acts,
            vec![
                Action::Sum(vec![2]),
                Action::Diagonal {
                    axes: vec![0, 1],
                    keep: true
                }
            ]
        );
        assert_eq!(t.names, vec!['i']);
    }

    #[test]
    fn matrix_product_and_batch() {
        let (mut a, mut b) = (term("ij", &[None; 2]), term("jk", &[None; 2]));
        let (acts, dot, out, sq) = pair(&mut a, &mut b, &['j'], &['i', 'k']);
        assert!(acts.iter().all(Vec::is_empty) && !sq);
        assert_eq!(
            dot,
            Dot {
                first: 0,
                axes: [vec![1], vec![0]],
                batch: [vec![], vec![]]
            }
        );
        assert_eq!(out.names, vec!['i', 'k']);
        let (mut a, mut b) = (term("bij", &[None; 3]), term("bjk", &[None; 3]));
        let (_, dot, out, _) = pair(&mut a, &mut b, &['j'], &['b', 'i', 'k']);
        assert_eq!(dot.batch, [vec![0], vec![0]]);
        assert_eq!(out.names, vec!['b', 'i', 'k']);
    }

    #[test]
    fn length_one_axes_are_squeezed() {
        let (mut a, mut b) = (
            term("bj", &[Some(1000), Some(32)]),
            term("bk", &[Some(1), Some(32)]),
        );
        let (acts, dot, out, sq) = pair(&mut a, &mut b, &['b'], &['j', 'k']);
        assert!(sq);
        assert_eq!(acts[1], vec![Action::Squeeze(vec![0])]);
        assert_eq!(acts[0], vec![Action::Sum(vec![0])]);
        assert!(dot.axes[0].is_empty() && dot.batch[0].is_empty());
        assert_eq!(out.names, vec!['j', 'k']);
        assert_eq!(transpose(&['k', 'j'], &['j', 'k']), Some(vec![1, 0]));
    }
}
