use super::*;

fn known(shapes: &[&[u64]]) -> Vec<Vec<Option<u64>>> {
    shapes
        .iter()
        .map(|s| s.iter().map(|&d| Some(d)).collect())
        .collect()
}

fn unknown(ndims: &[usize]) -> Vec<Vec<Option<u64>>> {
    ndims.iter().map(|&n| vec![None; n]).collect()
}

#[test]
fn paths_follow_numpy_and_pytensor() {
    let p = plan(
        "ijk,bj,ck->i",
        &known(&[&[32, 32, 32], &[1000, 32], &[1, 32]]),
    )
    .unwrap();
    assert_eq!(p.path, vec![vec![0, 2], vec![0, 1]]);
    assert!(p.optimized && !p.broadcast_label);
    let p = plan(
        "ijk,bj,bk->i",
        &known(&[&[32, 32, 32], &[1000, 32], &[1, 32]]),
    )
    .unwrap();
    assert_eq!(p.path, vec![vec![1, 2], vec![0, 1]]);
    assert!(p.broadcast_label);
    let p = plan("ij,jk,kl->il", &unknown(&[2, 2, 2])).unwrap();
    assert_eq!(p.path, vec![vec![2, 1], vec![1, 0]]);
    assert!(!p.optimized);
    let p = plan("...,...,...->...", &known(&[&[3], &[3], &[3]])).unwrap();
    assert_eq!(p.path, vec![vec![2, 1], vec![1, 0]]);
    assert_eq!(plan("ii", &unknown(&[2])).unwrap().path, vec![vec![0]]);
}

#[test]
fn pairwise_splits_from_the_right() {
    assert_eq!(
        pairwise(vec![vec![0, 1, 2, 3]], 4),
        vec![vec![3, 2], vec![2, 1], vec![1, 0]]
    );
    assert_eq!(
        pairwise(vec![vec![0, 3], vec![0, 1, 2]], 4),
        vec![vec![0, 3], vec![2, 1], vec![1, 0]]
    );
}

#[test]
fn steps_of_a_chain() {
    let p = plan("ij,jk->ik", &unknown(&[2, 2])).unwrap();
    assert_eq!(p.steps.len(), 1);
    let s = &p.steps[0];
    assert_eq!(s.operands, vec![1, 0]);
    // lhs is operand 1 ("jk"), rhs operand 0 ("ij"): rhs first gives "ik".
    let dot = s.dot.as_ref().unwrap();
    assert_eq!(dot.first, 1);
    assert_eq!(dot.axes, [vec![1], vec![0]]);
    assert!(s.transpose.is_none());
    let p = plan("ji", &unknown(&[2])).unwrap();
    assert_eq!(p.steps[0].transpose, Some(vec![1, 0]));
}

#[test]
fn bad_lengths_are_value_errors() {
    let e = plan("ij,jk", &known(&[&[2, 3], &[4, 5]])).unwrap_err();
    assert!(e.to_string().contains("'j'"), "{e}");
    assert!(plan("ij,jk", &known(&[&[2, 1], &[4, 5]])).is_ok());
    assert!(plan("", &[]).is_err());
}
