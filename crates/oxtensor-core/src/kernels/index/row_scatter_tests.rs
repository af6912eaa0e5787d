use super::*;
use crate::kernels::index::advanced::{plan, scatter};
use crate::tensor::index::IdxEntry;

/// The general plan's answer, for comparison.
fn planned(x: &Tensor, idx: &Tensor, y: &Tensor, bcast: &[bool], write: Write) -> Tensor {
    let mut out = Tensor::zeros(x.dtype(), x.shape()).unwrap();
    crate::kernels::copy::copy_into(x, &mut out).unwrap();
    let mut p = plan(&out, &[IdxEntry::Index(0)], &[idx]).unwrap();
    scatter(&mut p, y, bcast, write, "test").unwrap();
    drop(p);
    out
}

fn fast(x: &Tensor, idx: &Tensor, y: &Tensor, bcast: &[bool], write: Write) -> Result<Tensor> {
    let mut out = Tensor::zeros(x.dtype(), x.shape()).unwrap();
    crate::kernels::copy::copy_into(x, &mut out).unwrap();
    assert!(
        scatter_rows(&mut out, idx, y, bcast, write, "test")?,
        "taken"
    );
    Ok(out)
}

#[test]
fn rows_scalars_and_broadcast_rows_match_the_general_plan() {
    let x = Tensor::from_vec(vec![5, 3], (0..15).map(f64::from).collect()).unwrap();
    let idx = Tensor::from_vec(vec![6], vec![4i64, 0, -1, 4, 2, 0]).unwrap();
    let rows = Tensor::from_vec(vec![6, 3], (0..18).map(|v| f64::from(v) * 0.5).collect()).unwrap();
    let one_row = Tensor::from_vec(vec![3], vec![1.0, 2.0, 3.0]).unwrap();
    let per_index = Tensor::from_vec(vec![6, 1], vec![1.0, -1.0, 2.0, 5.0, 7.0, 9.0]).unwrap();
    let scalar = Tensor::scalar(2.5f64);
    let cases: [(&Tensor, &[bool]); 4] = [
        (&rows, &[false, false]),
        (&one_row, &[false]),
        (&per_index, &[false, true]),
        (&scalar, &[]),
    ];
    for (y, bcast) in cases {
        for write in [Write::Inc, Write::Set] {
            let want = planned(&x, &idx, y, bcast, write);
            let got = fast(&x, &idx, y, bcast, write).unwrap();
            assert!(got.same_values(&want), "{:?} {write:?}", y.shape());
        }
    }
}

#[test]
fn integer_counts_and_errors() {
    let x = Tensor::zeros(DType::Int64, &[4]).unwrap();
    let idx = Tensor::from_vec(vec![7], vec![1i32, 3, 1, 1, 0, 3, 1]).unwrap();
    let got = fast(&x, &idx, &Tensor::scalar(1i64), &[], Write::Inc).unwrap();
    assert_eq!(got.as_slice::<i64>().unwrap(), &[1, 4, 0, 2]);
    let bad = Tensor::from_vec(vec![2], vec![1i64, 4]).unwrap();
    let err = fast(&x, &bad, &Tensor::scalar(1i64), &[], Write::Inc).unwrap_err();
    assert!(
        err.to_string()
            .contains("index 4 is out of bounds for axis 0 with size 4"),
        "{err}"
    );
    let wrong = Tensor::from_vec(vec![3], vec![1.0f64, 2.0, 3.0]).unwrap();
    let two = Tensor::from_vec(vec![2], vec![0i64, 1]).unwrap();
    assert!(
        fast(&x, &two, &wrong, &[false], Write::Inc).is_err(),
        "3 values for 2 indices"
    );
}

#[test]
fn other_cases_are_left_to_the_general_plan() {
    let mut x = Tensor::zeros(DType::Float64, &[4, 2]).unwrap();
    let mask = Tensor::from_vec(vec![4], vec![true, false, true, false]).unwrap();
    let y = Tensor::scalar(1.0f64);
    assert!(
        !scatter_rows(&mut x, &mask, &y, &[], Write::Inc, "t").unwrap(),
        "a mask"
    );
    let grid = Tensor::from_vec(vec![2, 2], vec![0i64, 1, 2, 3]).unwrap();
    assert!(
        !scatter_rows(&mut x, &grid, &y, &[], Write::Inc, "t").unwrap(),
        "a 2-d index"
    );
    let mut c = Tensor::zeros(DType::Complex128, &[4]).unwrap();
    let idx = Tensor::from_vec(vec![1], vec![0i64]).unwrap();
    assert!(
        !scatter_rows(&mut c, &idx, &y, &[], Write::Inc, "t").unwrap(),
        "complex"
    );
}
