//! Small games with known solutions, for holding solvers to account.

pub mod kuhn;
pub mod leduc;
