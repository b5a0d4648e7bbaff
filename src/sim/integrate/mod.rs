//! Integration (section 5.2): adaptive steps with an error estimate, never across a
//! breakpoint, by the method that suits each component.
//!
//! **Methods.** Every component starts with the explicit Dormand–Prince 5(4) pair (seven
//! stages, six evaluations of `f` per step, no Jacobian, no linear solve), fifth order where
//! the dissertation's trapezoidal rule is second. A component whose steps turn out to be held
//! down by stability rather than accuracy is *stiff* (a link's critically damped spring, a
//! steep user force): the pair itself detects it (its estimate of `h |λ|` stays above its
//! stability bound, see `component::explicit`), and the component continues by Kennedy and
//! Carpenter's ESDIRK4(3)6L[2]SA, five implicit stages each solved by Newton–Raphson with the
//! symbolic Jacobian (see `component::esdirk`): fourth order, stable for any step and
//! L-stable, so a link's fast decay is damped within a step instead of ringing from point to
//! point as under the dissertation's trapezoidal rule (A- but not L-stable), which it
//! replaces. The first step after a restart (a collision's jump, a new contact load) is still
//! taken by the explicit pair: taken implicitly, with the step from before the jump, it made
//! Newton's cradle gain 8.9e3 J at its first impact. Stiffness is judged by the steps, not from the equations
//! beforehand, because what makes a component stiff is the ratio of its fastest decay to the
//! accuracy the tolerance asks for, which only the steps show: the same link is stiff under a
//! slow swing and not under a fast spin. Prescribed variables are not solved for: inside their
//! interval they take the prescribed value and derivative, at every stage.
//!
//! **Tolerance.** [`StepControl::tolerance`] bounds the error of each explicit step *per unit
//! of time* it covers: a step of length `h` may err by `h · (absolute + relative · |x|)` in
//! each variable, both at its end and anywhere between its points as the track's cubic reads
//! them. The errors made over a span `T` add up to at most `T` times the tolerance; whether
//! they then grow is the motion's doing (a body flipping about its intermediate axis amplifies
//! them, a damped one forgets them). The implicit method's steps are held per step, as the
//! dissertation's trapezoidal rule's were (5.2.2): held per unit of time, the spinning top
//! took 1,783 steps, the double pendulum 1,457 and the chain 2,899 (at 12.6 s of processor
//! time) where held per step they took 399, 299 and 463 (2.4 s), against the trapezoidal
//! rule's 1,488, 1,034 and 2,673 (1.9 s), all under full Newton; with one factorization per
//! step (`component::esdirk`) they take 984, 527 and 684 (1.4 s). A stiff component is held
//! down by its decay, which it forgets, more than by accuracy. The energy ledger's work sum
//! is fourth order too (`sim::physics::work`), so what it reports as drift is this error.
//!
//! **Switches.** A jump of the equations inside a step is no error the step size can fix: a
//! step across it errs by its length times the jump. Jumps at known times (a condition on time
//! alone, a trajectory's joins) are breakpoints the steps land on (`sim::physics::switches`);
//! a step that lands on one evaluates the equations at its end just below it, and the restart
//! there evaluates them anew. Jumps the motion causes (a condition on the state) are still
//! crossed by shrinking the step; `StepControl::allowed` keeps that finite.
//!
//! **Step size.** Halve and retry when Newton fails, halve the next step when Newton needs many
//! iterations, and scale by what the error estimates suggest (with a safety margin), growing by
//! at most a factor of 2 per implicit step (the dissertation's rule) or 5 per explicit one.
//!
//! **First integrals.** Equations may name a quantity their exact motion keeps while their
//! inputs stay constant (see [`ComponentEquations::first_integral`]: a freely turning body's
//! kinetic energy for the equations of its orientation). After every step over which the
//! inputs did not change, the end point is moved onto that quantity's level at the step's
//! start, so the integration error does not make it drift. A correction shorter than 1e-8 of
//! the point's length is made once without a second evaluation of the quantity: what is left
//! is of the order of its square, and the next step is projected onto the same level.
//!
//! [`ComponentEquations::first_integral`]: crate::sim::system::ComponentEquations::first_integral

mod component;
mod control;
mod newton_matrix;

pub(crate) use component::{just_below, ComponentIntegrator, FailureKind, StepFailure};
pub use control::{StepControl, Tolerance};
