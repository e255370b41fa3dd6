//! Moves for scripted scenarios: what tests and rehearsals do to a world on purpose, such as
//! handing a job to one chosen runner at a chosen moment (the race a drain must survive).

use std::time::Duration;

use crate::world::World;

impl World {
    /// Starts job `name` on the runner of pod `namespace/pod` now, for `duration`, as GitHub's
    /// dispatcher would. Returns false when that runner can't take a job (no registration, or
    /// busy).
    pub fn start_job_on(
        &mut self,
        namespace: &str,
        pod: &str,
        name: &str,
        duration: Duration,
    ) -> bool {
        let idle = self
            .registrations
            .values()
            .any(|r| r.name == pod && !r.busy);
        idle && self.assign(namespace, pod, name.to_owned(), duration)
    }
}
