//! A tree of float elementwise kinds evaluated element by element over a
//! few elements: the path of a fused step on small calls (`x * 2 + 1` on
//! ten elements), where a kernel call per node (dispatch, a scratch tensor
//! from the pool, the map's shape checks) cost about 1,400 machine
//! instructions against 40 for the arithmetic (callgrind). The functions
//! are the tensor kernels' own ([`scalar_fn`]), so results are identical.

use crate::dtype::DType;
use crate::kernels::elemwise::float_scalar::{scalar_fn, ScalarFn};
use crate::scalar::ScalarKind;
use crate::tensor::{Element, Tensor};
use num_traits::Float;
use smallvec::SmallVec;

/// Outputs up to this many elements take the tiny path: the intermediates
/// then fit in a small stack buffer.
pub const TINY_MAX: usize = 64;

/// An operand: the program's input at a position, or an earlier
/// instruction's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TinyArg {
    /// The program's input at this position.
    Leaf(usize),
    /// The result of the instruction at this position.
    Tmp(usize),
}

/// One instruction (the program's own; its fields are private).
pub struct TinyInstr<T> {
    f: ScalarFn<T>,
    args: SmallVec<[TinyArg; 3]>,
}

/// The instructions in order, the last computing the result.
pub enum TinyProgram {
    /// Computing in float32.
    F32(Instrs<f32>),
    /// Computing in float64.
    F64(Instrs<f64>),
}

/// A program's instructions for one element type.
pub struct Instrs<T> {
    list: Vec<TinyInstr<T>>,
    /// Whether every instruction reads at most the one before it (a chain,
    /// as most groups are): then each runs in place in the output.
    chain: bool,
}

/// Where an instruction reads an operand during a run.
#[derive(Clone, Copy)]
enum Arg<'a, T> {
    Slice(&'a [T]),
    Splat(T),
    /// The destination's current value (the previous result, in a chain).
    Acc,
}

impl TinyProgram {
    /// The program for `instrs` computing in `dtype`; `None` when a kind
    /// has no element function or an instruction reads a later one.
    pub fn new(dtype: DType, instrs: &[(ScalarKind, SmallVec<[TinyArg; 3]>)]) -> Option<Self> {
        match dtype {
            DType::Float32 => compile::<f32>(instrs).map(TinyProgram::F32),
            DType::Float64 => compile::<f64>(instrs).map(TinyProgram::F64),
            _ => None,
        }
    }

    /// Computes into `out` (C-contiguous, of the program's dtype, at most
    /// [`TINY_MAX`] elements) from `leaves`, each C-contiguous with `out`'s
    /// length or a single element to broadcast. `None` (nothing written)
    /// when the operands are not so.
    pub fn run(&self, leaves: &[&Tensor], out: &mut Tensor) -> Option<()> {
        match self {
            TinyProgram::F32(p) => p.eval(leaves, out.as_mut_slice::<f32>()?),
            TinyProgram::F64(p) => p.eval(leaves, out.as_mut_slice::<f64>()?),
        }
    }
}

fn compile<T: Float + Element>(
    instrs: &[(ScalarKind, SmallVec<[TinyArg; 3]>)],
) -> Option<Instrs<T>> {
    let list = instrs
        .iter()
        .enumerate()
        .map(|(j, (kind, args))| {
            let f = scalar_fn::<T>(*kind)?;
            let arity_ok = match f {
                ScalarFn::Unary(_) => args.len() == 1,
                ScalarFn::Binary(_) => args.len() >= 2,
            };
            let ordered = args
                .iter()
                .all(|a| !matches!(a, TinyArg::Tmp(t) if *t >= j));
            (arity_ok && ordered).then(|| TinyInstr {
                f,
                args: args.clone(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    // In place, an operand after the second would read the destination
    // after the first two have overwritten it.
    let chain = list.iter().enumerate().all(|(j, ins)| {
        ins.args
            .iter()
            .enumerate()
            .all(|(p, a)| !matches!(a, TinyArg::Tmp(t) if *t + 1 != j || p >= 2))
    });
    Some(Instrs { list, chain })
}

impl<T: Float + Element> Instrs<T> {
    fn eval(&self, leaves: &[&Tensor], out: &mut [T]) -> Option<()> {
        let (n, k) = (out.len(), self.list.len());
        if n > TINY_MAX || k == 0 {
            return None;
        }
        // A plain loop: collecting into `Option<SmallVec>` cost ~80
        // instructions per leaf (callgrind), more than the arithmetic.
        let mut srcs: SmallVec<[&[T]; 4]> = SmallVec::new();
        for t in leaves {
            let s = t.as_slice::<T>()?;
            if s.len() != n && s.len() != 1 {
                return None;
            }
            srcs.push(s);
        }
        // A chain runs in place in `out`; a tree keeps each result but the
        // last in `tmp[j * n..]`.
        let mut tmp: Vec<T> = if self.chain {
            Vec::new()
        } else {
            vec![T::zero(); n * (k - 1)]
        };
        for (j, ins) in self.list.iter().enumerate() {
            let at = (j * n).min(tmp.len());
            let (done, rest) = tmp.split_at_mut(at);
            let dst = if self.chain || j + 1 == k {
                &mut *out
            } else {
                &mut rest[..n]
            };
            let arg = |a: TinyArg| match a {
                TinyArg::Leaf(l) if srcs[l].len() == 1 => Arg::Splat(srcs[l][0]),
                TinyArg::Leaf(l) => Arg::Slice(srcs[l]),
                TinyArg::Tmp(_) if self.chain => Arg::Acc,
                TinyArg::Tmp(t) => Arg::Slice(&done[t * n..(t + 1) * n]),
            };
            match ins.f {
                ScalarFn::Unary(f) => unary(f, arg(ins.args[0]), dst),
                ScalarFn::Binary(f) => {
                    binary(f, arg(ins.args[0]), arg(ins.args[1]), dst);
                    for &a in &ins.args[2..] {
                        binary(f, Arg::Acc, arg(a), dst);
                    }
                }
            }
        }
        Some(())
    }
}

/// `dst[i] = f(a[i])`, one loop per kind of operand (a match per element
/// cost more than the arithmetic).
fn unary<T: Copy>(f: fn(T) -> T, a: Arg<T>, dst: &mut [T]) {
    match a {
        Arg::Slice(xs) => dst.iter_mut().zip(xs).for_each(|(y, &x)| *y = f(x)),
        Arg::Splat(x) => dst.fill(f(x)),
        Arg::Acc => dst.iter_mut().for_each(|y| *y = f(*y)),
    }
}

/// `dst[i] = f(a[i], b[i])`, one loop per pair of operand kinds.
fn binary<T: Copy>(f: fn(T, T) -> T, a: Arg<T>, b: Arg<T>, dst: &mut [T]) {
    use Arg::*;
    match (a, b) {
        (Slice(xs), Slice(ys)) => {
            for ((z, &x), &y) in dst.iter_mut().zip(xs).zip(ys) {
                *z = f(x, y);
            }
        }
        (Slice(xs), Splat(y)) => dst.iter_mut().zip(xs).for_each(|(z, &x)| *z = f(x, y)),
        (Splat(x), Slice(ys)) => dst.iter_mut().zip(ys).for_each(|(z, &y)| *z = f(x, y)),
        (Splat(x), Splat(y)) => dst.fill(f(x, y)),
        (Acc, Slice(ys)) => dst.iter_mut().zip(ys).for_each(|(z, &y)| *z = f(*z, y)),
        (Acc, Splat(y)) => dst.iter_mut().for_each(|z| *z = f(*z, y)),
        (Slice(xs), Acc) => dst.iter_mut().zip(xs).for_each(|(z, &x)| *z = f(x, *z)),
        (Splat(x), Acc) => dst.iter_mut().for_each(|z| *z = f(x, *z)),
        (Acc, Acc) => dst.iter_mut().for_each(|z| *z = f(*z, *z)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallvec::smallvec;

    fn program(dtype: DType) -> TinyProgram {
        use ScalarKind::*;
        // exp(x * 2 - y) + x + 0.5, with a three-operand add.
        let instrs = vec![
            (Mul, smallvec![TinyArg::Leaf(0), TinyArg::Leaf(1)]),
            (Sub, smallvec![TinyArg::Tmp(0), TinyArg::Leaf(2)]),
            (Exp, smallvec![TinyArg::Tmp(1)]),
            (
                Add,
                smallvec![TinyArg::Tmp(2), TinyArg::Leaf(0), TinyArg::Leaf(3)],
            ),
        ];
        TinyProgram::new(dtype, &instrs).unwrap()
    }

    #[test]
    fn computes_a_tree_with_broadcast_leaves() {
        let x = Tensor::from_vec(vec![5], vec![0.0f64, 1.0, -2.0, 3.5, f64::NAN]).unwrap();
        let y = Tensor::from_vec(vec![5], vec![1.0f64, 0.5, 0.0, -1.0, 2.0]).unwrap();
        let (two, half) = (Tensor::scalar(2.0f64), Tensor::scalar(0.5f64));
        let two = two.view(&[1], &[8], two.offset()).unwrap();
        let half = half.view(&[1], &[8], half.offset()).unwrap();
        let mut out = Tensor::uninit(DType::Float64, &[5]).unwrap();
        program(DType::Float64)
            .run(&[&x, &two, &y, &half], &mut out)
            .unwrap();
        let got = out.as_slice::<f64>().unwrap();
        let (xs, ys) = (x.as_slice::<f64>().unwrap(), y.as_slice::<f64>().unwrap());
        for ((&g, &xv), &yv) in got.iter().zip(xs).zip(ys).take(4) {
            assert_eq!(g, ((xv * 2.0 - yv).exp() + xv) + 0.5);
        }
        assert!(got[4].is_nan());
    }

    #[test]
    fn trees_keep_their_intermediates_and_chains_read_them_anywhere() {
        use ScalarKind::*;
        let x = Tensor::from_vec(vec![3], vec![1.0f32, -2.0, 0.25]).unwrap();
        let c = Tensor::scalar(3.0f32);
        let c = c.view(&[1], &[4], c.offset()).unwrap();
        // (x * 3) / (x - 3): a tree (the division reads results 0 and 1).
        let tree = [
            (Mul, smallvec![TinyArg::Leaf(0), TinyArg::Leaf(1)]),
            (Sub, smallvec![TinyArg::Leaf(0), TinyArg::Leaf(1)]),
            (TrueDiv, smallvec![TinyArg::Tmp(0), TinyArg::Tmp(1)]),
        ];
        // 3 - sqr(x): a chain whose previous result is the second operand.
        let chain = [
            (Sqr, smallvec![TinyArg::Leaf(0)]),
            (Sub, smallvec![TinyArg::Leaf(1), TinyArg::Tmp(0)]),
        ];
        let run = |instrs: &[(ScalarKind, SmallVec<[TinyArg; 3]>)]| {
            let mut out = Tensor::uninit(DType::Float32, &[3]).unwrap();
            let p = TinyProgram::new(DType::Float32, instrs).unwrap();
            p.run(&[&x, &c], &mut out).unwrap();
            out.as_slice::<f32>().unwrap().to_vec()
        };
        // x + 3 + sqr(x): the previous result as a third operand.
        let third = [
            (Sqr, smallvec![TinyArg::Leaf(0)]),
            (
                Add,
                smallvec![TinyArg::Leaf(0), TinyArg::Leaf(1), TinyArg::Tmp(0)],
            ),
        ];
        let xs = [1.0f32, -2.0, 0.25];
        assert_eq!(run(&third), xs.map(|v| v + 3.0 + v * v).to_vec());
        assert_eq!(run(&tree), xs.map(|v| (v * 3.0) / (v - 3.0)).to_vec());
        assert_eq!(run(&chain), xs.map(|v| 3.0 - v * v).to_vec());
    }

    #[test]
    fn declines_what_it_cannot_run() {
        use ScalarKind::*;
        assert!(TinyProgram::new(DType::Int64, &[(Neg, smallvec![TinyArg::Leaf(0)])]).is_none());
        assert!(TinyProgram::new(DType::Float32, &[(Erf, smallvec![TinyArg::Leaf(0)])]).is_none());
        let reads_later = [(Neg, smallvec![TinyArg::Tmp(0)])];
        assert!(TinyProgram::new(DType::Float64, &reads_later).is_none());
        let p = TinyProgram::new(DType::Float64, &[(Neg, smallvec![TinyArg::Leaf(0)])]).unwrap();
        let big = Tensor::zeros(DType::Float64, &[TINY_MAX + 1]).unwrap();
        let mut out = Tensor::uninit(DType::Float64, &[TINY_MAX + 1]).unwrap();
        assert!(p.run(&[&big], &mut out).is_none());
        let strided = big.view(&[3], &[16], big.offset()).unwrap();
        let mut out = Tensor::uninit(DType::Float64, &[3]).unwrap();
        assert!(p.run(&[&strided], &mut out).is_none());
        let mut wrong = Tensor::uninit(DType::Float32, &[3]).unwrap();
        assert!(p.run(&[&big], &mut wrong).is_none());
    }
}
