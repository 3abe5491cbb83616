"""The batch controllers: Jobs run pods to completion, CronJobs create Jobs on a schedule.

`job.py` is the Job controller (completions, parallelism, backoff, deadlines, Indexed Jobs with
`completionindexes.py`); `cronjob.py` the CronJob controller (kube's cronjob controller v2), whose
schedule `flotilla.api.cron` evaluates.
"""
