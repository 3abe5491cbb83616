"""Controller runtime: work queues and reconcile loops shared by every controller in Flotilla."""
