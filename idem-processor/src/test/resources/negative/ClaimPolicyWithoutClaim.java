package com.example.shop;

import dev.idem.ExpiredLease;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;

public interface ClaimPolicyWithoutClaim {

  @IdempotentCommand(onExpiredLease = ExpiredLease.PARK)
  String charge(@IdempotencyKey String requestId);
}
