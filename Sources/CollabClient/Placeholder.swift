public enum _PlaceholderCollabClient {}
