//! The contraction order of an einsum: which operands to contract first,
//! as `numpy.einsum_path` chooses it when every length is known (its
//! "optimal" search, with its cost model and memory limit, so the same
//! subscripts give NumPy's path), a greedy search past
//! [`OPTIMAL_MAX_OPERANDS`], and right to left when lengths are unknown.
//!
//! A path is a list of steps; each step names positions in the current
//! list of operands, which are removed, their result appended at the end.

/// The most operands searched exhaustively: the search visits
/// `n! (n-1)! / 2^(n-1)` orders (56,700 for 7, 1.6 million for 8).
pub const OPTIMAL_MAX_OPERANDS: usize = 7;

/// Labels as bits (at most 128 distinct labels in one einsum).
pub type LabelSet = u128;

/// Operand label sets, the output's, and each label's length.
pub struct Problem<'a> {
    /// One set per operand.
    pub inputs: Vec<LabelSet>,
    /// The labels kept in the result.
    pub output: LabelSet,
    /// The length of each label's axis, by bit.
    pub sizes: &'a [u128],
}

impl Problem<'_> {
    /// The number of elements of a tensor with the labels `set`.
    fn size(&self, set: LabelSet) -> u128 {
        let (mut rest, mut n) = (set, 1u128);
        while rest != 0 {
            n = n.saturating_mul(self.sizes[rest.trailing_zeros() as usize]);
            rest &= rest - 1;
        }
        n
    }

    /// NumPy's flop count of contracting `n_terms` operands over `all`
    /// labels, `inner` when some label is summed away.
    fn flops(&self, all: LabelSet, inner: bool, n_terms: usize) -> u128 {
        let factor = (n_terms.saturating_sub(1)).max(1) + usize::from(inner);
        self.size(all).saturating_mul(factor as u128)
    }
}

/// What contracting the operands at `positions` of `sets` gives.
struct Contraction {
    result: LabelSet,
    remaining: Vec<LabelSet>,
    removed: LabelSet,
    all: LabelSet,
}

fn contract(positions: &[usize], sets: &[LabelSet], output: LabelSet) -> Contraction {
    let (mut all, mut keep) = (0, output);
    let mut remaining = Vec::with_capacity(sets.len());
    for (i, &s) in sets.iter().enumerate() {
        if positions.contains(&i) {
            all |= s;
        } else {
            keep |= s;
            remaining.push(s);
        }
    }
    let result = all & keep;
    remaining.push(result);
    Contraction {
        result,
        remaining,
        removed: all & !result,
        all,
    }
}

/// Contracting the operands one pair at a time from the right: `(n-1,
/// n-2), (n-2, n-3), ..., (1, 0)`; `[(0,)]` for one operand.
pub fn right_to_left(n: usize) -> Vec<Vec<usize>> {
    if n <= 1 {
        return vec![vec![0]];
    }
    (1..n).rev().map(|i| vec![i, i - 1]).collect()
}

/// The path `numpy.einsum_path(..., optimize="optimal")` gives (greedy
/// past [`OPTIMAL_MAX_OPERANDS`]), the memory limit being the largest
/// operand or the output.
pub fn known_lengths_path(p: &Problem<'_>) -> Vec<Vec<usize>> {
    let n = p.inputs.len();
    let all = p.inputs.iter().fold(0, |a, &s| a | s);
    if n <= 2 || all == p.output {
        return vec![(0..n).collect()];
    }
    let limit = p
        .inputs
        .iter()
        .chain([&p.output])
        .map(|&s| p.size(s))
        .max()
        .unwrap_or(0);
    if n <= OPTIMAL_MAX_OPERANDS {
        optimal(p, limit)
    } else {
        greedy(p, limit)
    }
}

/// Every order of pairwise contractions whose intermediates fit in
/// `limit`, the cheapest kept (the first found among equals, as NumPy).
fn optimal(p: &Problem<'_>, limit: u128) -> Vec<Vec<usize>> {
    let mut full: Vec<(u128, Vec<Vec<usize>>, Vec<LabelSet>)> =
        vec![(0, Vec::new(), p.inputs.clone())];
    for _ in 0..p.inputs.len() - 1 {
        let mut next = Vec::new();
        for (cost, path, sets) in &full {
            for i in 0..sets.len() {
                for j in i + 1..sets.len() {
                    let c = contract(&[i, j], sets, p.output);
                    if p.size(c.result) > limit {
                        continue;
                    }
                    let step = p.flops(c.all, c.removed != 0, 2);
                    let mut path = path.clone();
                    path.push(vec![i, j]);
                    next.push((cost.saturating_add(step), path, c.remaining));
                }
            }
        }
        if next.is_empty() {
            let (_, mut path, sets) = cheapest(full);
            path.push((0..sets.len()).collect());
            return path;
        }
        full = next;
    }
    cheapest(full).1
}

fn cheapest<T>(mut all: Vec<(u128, Vec<Vec<usize>>, T)>) -> (u128, Vec<Vec<usize>>, T) {
    let best = (0..all.len()).min_by_key(|&i| all[i].0).unwrap_or(0);
    all.swap_remove(best)
}

/// At each step the pair whose contraction removes the most elements
/// (then the cheapest), pairs sharing a label before outer products, as
/// NumPy's greedy search ranks them; what no pair can do within `limit`
/// or under the cost of one big contraction is done in one last step.
fn greedy(p: &Problem<'_>, limit: u128) -> Vec<Vec<usize>> {
    let mut sets = p.inputs.clone();
    let whole = contract(&(0..sets.len()).collect::<Vec<_>>(), &sets, p.output);
    let naive = p.flops(whole.all, whole.removed != 0, sets.len());
    let (mut spent, mut path) = (0u128, Vec::new());
    while sets.len() > 1 {
        let best = best_pair(p, &sets, limit, naive.saturating_sub(spent), false)
            .or_else(|| best_pair(p, &sets, limit, naive.saturating_sub(spent), true));
        let Some((cost, i, j)) = best else {
            path.push((0..sets.len()).collect());
            break;
        };
        sets = contract(&[i, j], &sets, p.output).remaining;
        spent = spent.saturating_add(cost);
        path.push(vec![i, j]);
    }
    path
}

/// The best pair of `sets` (with `outer`, disjoint pairs too): its cost
/// and positions.
fn best_pair(
    p: &Problem<'_>,
    sets: &[LabelSet],
    limit: u128,
    budget: u128,
    outer: bool,
) -> Option<(u128, usize, usize)> {
    let mut best: Option<((i128, u128), usize, usize)> = None;
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            if !outer && sets[i] & sets[j] == 0 {
                continue;
            }
            let c = contract(&[i, j], sets, p.output);
            let new_size = p.size(c.result);
            let cost = p.flops(c.all, c.removed != 0, 2);
            if new_size > limit || cost > budget {
                continue;
            }
            let old = p.size(sets[i]).saturating_add(p.size(sets[j]));
            let removed = old as i128 - new_size as i128;
            let key = (-removed, cost);
            if best.as_ref().is_none_or(|(k, _, _)| key < *k) {
                best = Some((key, i, j));
            }
        }
    }
    best.map(|((_, cost), i, j)| (cost, i, j))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit sets of the letters in `terms`, and the letter lengths.
    fn problem<'a>(
        terms: &[&str],
        out: &str,
        sizes: &'a mut Vec<u128>,
        len: &[(char, u128)],
    ) -> Problem<'a> {
        let bit = |c: char| (c as u8 - b'a') as usize;
        sizes.resize(128, 1);
        for &(c, n) in len {
            sizes[bit(c)] = n;
        }
        let set = |t: &str| t.chars().fold(0u128, |a, c| a | 1 << bit(c));
        Problem {
            inputs: terms.iter().map(|t| set(t)).collect(),
            output: set(out),
            sizes,
        }
    }

    #[test]
    fn numpy_optimal_paths() {
        // numpy.einsum_path(..., optimize="optimal") for these shapes.
        let mut sizes = Vec::new();
        let lens = [('i', 32), ('j', 32), ('k', 32), ('b', 1000), ('c', 1)];
        let p = problem(&["ijk", "bj", "ck"], "i", &mut sizes, &lens);
        assert_eq!(known_lengths_path(&p), vec![vec![0, 2], vec![0, 1]]);
        let mut sizes = Vec::new();
        let p = problem(&["ijk", "bj", "bk"], "i", &mut sizes, &lens);
        assert_eq!(known_lengths_path(&p), vec![vec![1, 2], vec![0, 1]]);
    }

    #[test]
    fn trivial_paths() {
        let mut sizes = Vec::new();
        let p = problem(&["a", "a", "a"], "a", &mut sizes, &[('a', 3)]);
        assert_eq!(known_lengths_path(&p), vec![vec![0, 1, 2]]);
        assert_eq!(right_to_left(4), vec![vec![3, 2], vec![2, 1], vec![1, 0]]);
        assert_eq!(right_to_left(1), vec![vec![0]]);
    }

    #[test]
    fn greedy_contracts_shared_labels_first() {
        let mut sizes = Vec::new();
        let lens = [('i', 10), ('j', 20), ('k', 30), ('l', 40)];
        let p = problem(&["ij", "kl", "jk"], "il", &mut sizes, &lens);
        let path = greedy(&p, 1 << 40);
        assert_eq!(path.len(), 2);
        assert!(p.inputs[path[0][0]] & p.inputs[path[0][1]] != 0);
    }
}
