//! Elementwise ops computing in bool: the logical versions of the integer
//! ops. The logical ones read their inputs as bytes, nonzero meaning true
//! (NumPy's reading), so a bool array from the host that holds bytes other
//! than 0 and 1 can be used without first being checked and converted (the
//! check alone cost a quarter of `a & b` on a million bools).

use super::map::{map1, map2};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::scalar::ScalarKind;
use crate::tensor::Tensor;

/// Whether `k` on bool inputs reads them as bytes (any nonzero byte is
/// true), so its inputs may hold bytes other than 0 and 1.
pub fn reads_bytes(k: ScalarKind) -> bool {
    use ScalarKind::*;
    matches!(
        k,
        Add | Or | Maximum | Mul | And | Minimum | Xor | Neq | Eq | Lt | Gt | Le | Ge | Invert
    )
}

/// Runs `k` on bool inputs into `out`.
pub(crate) fn apply_bool(k: ScalarKind, ins: &[&Tensor], out: &mut Tensor) -> Result<()> {
    if reads_bytes(k) {
        let bytes: smallvec::SmallVec<[Tensor; 4]> = ins.iter().map(|t| t.bool_bytes()).collect();
        return logical(k, &bytes, out);
    }
    use ScalarKind::*;
    let (a, b) = (ins[0], ins.get(1).copied());
    let two = || b.ok_or_else(|| Error::Type(format!("{} needs two inputs", k.name())));
    match k {
        // NumPy's integer modulo of 0/1 values: always 0 (x % 0 is 0 too).
        Mod => map2(a, two()?, out, |_: bool, _: bool| false),
        // Floor division of 0/1 values: x // 1 is x, x // 0 is 0 (NumPy's integers).
        IntDiv => map2(a, two()?, out, |x: bool, y: bool| x & y),
        Abs | Sqr => map1(a, out, |x: bool| x),
        IsNan | IsInf => map1(a, out, |_: bool| false),
        Clip => super::float_ops::clip_inputs::<bool>(ins, two()?, out),
        other => {
            return Err(Error::Type(format!(
                "{} is not defined for bool inputs",
                other.name()
            )))
        }
    }
    Ok(())
}

/// A kind [`reads_bytes`] accepts, on inputs seen as `uint8` bytes. Each
/// arm is its own closure so that the loop inlines and vectorises it.
fn logical(k: ScalarKind, bytes: &[Tensor], out: &mut Tensor) -> Result<()> {
    use ScalarKind::*;
    let t = |x: u8| x != 0;
    match k {
        Add | Or | Maximum => fold_bytes(bytes, out, move |x, y| t(x) | t(y))?,
        Mul | And | Minimum => fold_bytes(bytes, out, move |x, y| t(x) & t(y))?,
        Xor | Neq => fold_bytes(bytes, out, move |x, y| t(x) ^ t(y))?,
        Eq => fold_bytes(bytes, out, move |x, y| t(x) == t(y))?,
        Lt => fold_bytes(bytes, out, move |x, y| !t(x) & t(y))?,
        Gt => fold_bytes(bytes, out, move |x, y| t(x) & !t(y))?,
        Le => fold_bytes(bytes, out, move |x, y| t(x) <= t(y))?,
        Ge => fold_bytes(bytes, out, move |x, y| t(x) >= t(y))?,
        // `Invert`, the one unary kind `reads_bytes` accepts.
        _ => map1(&bytes[0], out, |x: u8| x == 0),
    }
    Ok(())
}

/// `f` folded over byte inputs into bools (`and(a, b, c)`): later inputs
/// are combined with the running result, whose bytes are 0 or 1.
fn fold_bytes(
    bytes: &[Tensor],
    out: &mut Tensor,
    f: impl Fn(u8, u8) -> bool + Sync + Copy,
) -> Result<()> {
    match bytes {
        [a] => map1(a, out, |x: u8| x != 0),
        [a, b] => map2(a, b, out, f),
        [a, b, rest @ ..] => {
            let mut acc = Tensor::uninit(DType::Bool, out.shape())?;
            map2(a, b, &mut acc, f);
            let mut again = vec![acc.bool_bytes()];
            again.extend(rest.iter().cloned());
            fold_bytes(&again, out, f)?;
        }
        [] => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Scalar;

    /// Bools as raw bytes, as host memory may hold them.
    fn raw(bytes: &[u8]) -> Tensor {
        Tensor::from_bytes(DType::Bool, vec![bytes.len()], bytes.to_vec()).unwrap()
    }

    fn canonical(bytes: &[u8]) -> Tensor {
        raw(&bytes.iter().map(|&b| (b != 0) as u8).collect::<Vec<_>>())
    }

    fn apply(k: ScalarKind, ins: &[&Tensor]) -> Tensor {
        let mut out = Tensor::uninit(DType::Bool, ins[0].shape()).unwrap();
        apply_bool(k, ins, &mut out).unwrap();
        out
    }

    const A: [u8; 8] = [0, 1, 2, 0x80, 0xff, 0, 7, 1];
    const B: [u8; 8] = [0, 0, 1, 0x40, 0, 9, 0xfe, 1];

    #[test]
    fn logical_kinds_read_any_nonzero_byte_as_true() {
        use ScalarKind::*;
        let kinds = [
            Add, Or, Maximum, Mul, And, Minimum, Xor, Neq, Eq, Lt, Gt, Le, Ge, Invert,
        ];
        for k in kinds {
            assert!(reads_bytes(k), "{k:?}");
            let n = if k == Invert { 1 } else { 2 };
            let (ra, rb, ca, cb) = (raw(&A), raw(&B), canonical(&A), canonical(&B));
            let got = apply(k, &[&ra, &rb][..n]);
            let want = apply(k, &[&ca, &cb][..n]);
            assert!(got.same_values(&want), "{k:?}");
            // The output holds only 0 and 1, so later kernels may read it as bool.
            assert!(got.to_c_bytes().unwrap().iter().all(|&b| b <= 1), "{k:?}");
        }
    }

    #[test]
    fn folds_strided_inputs_and_three_operands() {
        let (ra, rb) = (raw(&A), raw(&B));
        let every_other = ra.view(&[4], &[2], 0).unwrap();
        let got = apply(
            ScalarKind::Xor,
            &[&every_other, &rb.view(&[4], &[2], 1).unwrap()],
        );
        let want = [(0, 0), (2, 0x40), (0xff, 9), (7, 1)].map(|(x, y)| (x != 0) ^ (y != 0));
        assert_eq!(
            (0..4).map(|i| got.get(i)).collect::<Vec<_>>(),
            want.map(Scalar::Bool)
        );
        let c = raw(&[3, 3, 3, 0, 3, 3, 3, 3]);
        let all = apply(ScalarKind::And, &[&ra, &rb, &c]);
        let want: Vec<Scalar> = (0..8)
            .map(|i| Scalar::Bool(A[i] != 0 && B[i] != 0 && i != 3))
            .collect();
        assert_eq!((0..8).map(|i| all.get(i)).collect::<Vec<_>>(), want);
    }

    #[test]
    fn other_kinds_keep_their_bool_rules() {
        let (a, b) = (canonical(&A), canonical(&B));
        assert!(!reads_bytes(ScalarKind::Mod));
        let m = apply(ScalarKind::Mod, &[&a, &b]);
        assert!((0..8).all(|i| m.get(i) == Scalar::Bool(false)));
        let mut out = Tensor::uninit(DType::Bool, &[8]).unwrap();
        let err = apply_bool(ScalarKind::Exp, &[&a], &mut out).unwrap_err();
        assert!(err.to_string().contains("not defined for bool"), "{err}");
    }
}
