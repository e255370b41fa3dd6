//! Reading the actions/runner log: which job, if any, the runner is running.
//!
//! The runner prints `Running job: NAME` when it takes a job and
//! `Job NAME completed with result: RESULT` when it is done, each after a timestamp. The
//! running job is the last one started without a later completion. Only a tail of the log is
//! read, so a job started before the tail is unknown (and reported as such by callers).

/// The job the runner is running according to `log`, or `None`.
pub fn running_job(log: &str) -> Option<String> {
    let mut current: Option<String> = None;
    for line in log.lines() {
        if let Some(name) = started_job(line) {
            current = Some(name.to_owned());
        } else if let Some(name) = completed_job(line)
            && current.as_deref() == Some(name)
        {
            current = None;
        }
    }
    current
}

/// `NAME` of a `Running job: NAME` line.
pub(crate) fn started_job(line: &str) -> Option<&str> {
    const MARK: &str = "Running job: ";
    let at = line.find(MARK)?;
    let name = line[at + MARK.len()..].trim();
    (!name.is_empty()).then_some(name)
}

/// `NAME` of a `Job NAME completed with result: …` line.
pub(crate) fn completed_job(line: &str) -> Option<&str> {
    const END: &str = " completed with result";
    let end = line.rfind(END)?;
    // The first "Job " is the runner's word; a job may itself be called "Job …".
    let start = line[..end].find("Job ")? + "Job ".len();
    let name = line[start..end].trim();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TS: &str = "2026-11-29 21:00:00Z: ";

    fn log(lines: &[&str]) -> String {
        lines.iter().map(|l| format!("{TS}{l}\n")).collect()
    }

    #[test]
    fn idle_runner_has_no_job() {
        assert_eq!(running_job(""), None);
        assert_eq!(
            running_job(&log(&["√ Connected to GitHub", "Listening for Jobs"])),
            None
        );
    }

    #[test]
    fn started_job_without_completion_is_running() {
        let l = log(&["Listening for Jobs", "Running job: build (linux, 1.89)"]);
        assert_eq!(running_job(&l).as_deref(), Some("build (linux, 1.89)"));
    }

    #[test]
    fn completed_job_is_not_running() {
        let l = log(&[
            "Running job: test",
            "Job test completed with result: Succeeded",
            "Listening for Jobs",
        ]);
        assert_eq!(running_job(&l), None);
        let failed = log(&[
            "Running job: test",
            "Job test completed with result: Failed",
        ]);
        assert_eq!(running_job(&failed), None);
    }

    #[test]
    fn the_last_started_job_counts() {
        let l = log(&[
            "Running job: a",
            "Job a completed with result: Succeeded",
            "Running job: b",
        ]);
        assert_eq!(running_job(&l).as_deref(), Some("b"));
        // A completion of another job does not end the running one.
        let l = log(&["Running job: b", "Job a completed with result: Succeeded"]);
        assert_eq!(running_job(&l).as_deref(), Some("b"));
        // A later start after a completion.
        let l = log(&[
            "Running job: a",
            "Running job: b",
            "Job b completed with result: Canceled",
        ]);
        assert_eq!(running_job(&l), None);
    }

    #[test]
    fn job_names_may_contain_the_markers() {
        let l = log(&[
            "Running job: Job deploy",
            "Job Job deploy completed with result: Succeeded",
        ]);
        assert_eq!(running_job(&l), None);
        let l = log(&["Running job: Job deploy"]);
        assert_eq!(running_job(&l).as_deref(), Some("Job deploy"));
    }

    #[test]
    fn lines_without_timestamps_and_crlf() {
        assert_eq!(running_job("Running job: x\r\n").as_deref(), Some("x"));
        assert_eq!(
            running_job("Running job: x\r\nJob x completed with result: Succeeded\r\n"),
            None
        );
        assert_eq!(running_job("Running job: \n"), None);
    }
}
