package com.example.flow.model;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** No @Version. */
@Entity
public class Invoice {
  @Id
  private long number;

  private OrderStatus status;
}
