enum RedisPlaceholder {}
