declare const api: {
  /** Update an existing pet */
  updatePet(args: { name: string; photoUrls: string[]; category?: { id?: number; name?: string }; status?: "available" | "pending" | "sold"; tags?: { id?: number; name?: string }[] }): Promise<unknown>;
  /** Add a new pet to the store */
  addPet(args: { name: string; photoUrls: string[]; category?: { id?: number; name?: string }; status?: "available" | "pending" | "sold"; tags?: { id?: number; name?: string }[] }): Promise<unknown>;
  /** Finds Pets by status */
  findPetsByStatus(args: { status: ("available" | "pending" | "sold")[] }): Promise<{ result: { name: string; photoUrls: string[]; category?: { id?: number; name?: string }; id?: number; status?: "available" | "pending" | "sold"; tags?: { id?: number; name?: string }[] }[] }>;
  /** [Deprecated] Finds Pets by tags */
  findPetsByTags(args: { tags: string[] }): Promise<{ result: { name: string; photoUrls: string[]; category?: { id?: number; name?: string }; id?: number; status?: "available" | "pending" | "sold"; tags?: { id?: number; name?: string }[] }[] }>;
  /** Find pet by ID */
  getPetById(args: { petId: number }): Promise<{ name: string; photoUrls: string[]; category?: { id?: number; name?: string }; id?: number; status?: "available" | "pending" | "sold"; tags?: { id?: number; name?: string }[] }>;
  /** Updates a pet in the store with form data */
  updatePetWithForm(args: { petId: number; name?: string; status?: string }): Promise<unknown>;
  /** Deletes a pet */
  deletePet(args: { petId: number; api_key?: string }): Promise<unknown>;
  /** uploads an image */
  uploadFile(args: { petId: number; body?: string /* base64 */ }): Promise<{ code?: number; message?: string; type?: string }>;
  /** Returns pet inventories by status */
  getInventory(args?: {}): Promise<{ [key: string]: number }>;
  /** Place an order for a pet */
  placeOrder(args?: { complete?: boolean /* default false */; id?: number; petId?: number; quantity?: number; shipDate?: string /* date-time */; status?: "placed" | "approved" | "delivered" }): Promise<{ complete?: boolean /* default false */; id?: number; petId?: number; quantity?: number; shipDate?: string /* date-time */; status?: "placed" | "approved" | "delivered" }>;
  /** Find purchase order by ID */
  getOrderById(args: { orderId: number /* min 1, max 10 */ }): Promise<{ complete?: boolean /* default false */; id?: number; petId?: number; quantity?: number; shipDate?: string /* date-time */; status?: "placed" | "approved" | "delivered" }>;
  /** Delete purchase order by ID */
  deleteOrder(args: { orderId: number /* min 1 */ }): Promise<unknown>;
  /** Create user */
  createUser(args?: { email?: string; firstName?: string; id?: number; lastName?: string; password?: string; phone?: string; userStatus?: number; username?: string }): Promise<unknown>;
  /** Creates list of users with given input array */
  createUsersWithArrayInput(args: { body: { email?: string; firstName?: string; id?: number; lastName?: string; password?: string; phone?: string; userStatus?: number; username?: string }[] }): Promise<unknown>;
  /** Creates list of users with given input array */
  createUsersWithListInput(args: { body: { email?: string; firstName?: string; id?: number; lastName?: string; password?: string; phone?: string; userStatus?: number; username?: string }[] }): Promise<unknown>;
  /** Logs user into the system */
  loginUser(args: { password: string; username: string }): Promise<{ result: string }>;
  /** Logs out current logged in user session */
  logoutUser(args?: {}): Promise<unknown>;
  /** Get user by user name */
  getUserByName(args: { username: string }): Promise<{ email?: string; firstName?: string; id?: number; lastName?: string; password?: string; phone?: string; userStatus?: number; username?: string }>;
  /** Updated user */
  updateUser(args: { username: string; body_username?: string; email?: string; firstName?: string; id?: number; lastName?: string; password?: string; phone?: string; userStatus?: number }): Promise<unknown>;
  /** Delete user */
  deleteUser(args: { username: string }): Promise<unknown>;
};
