#include "app.h"

#include "feature_labels.h"

#include <impulse/error.h>

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>

namespace impulse::testbed {
namespace {

constexpr int k_initial_width = 1280;
constexpr int k_initial_height = 720;
constexpr Real k_pick_range = 500;       // m, the longest ray a click casts
constexpr double k_longest_frame = 0.1;  // s of simulated time a slow frame may ask for

}  // namespace

ImGuiLayer::ImGuiLayer(GLFWwindow* window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini left in the working directory
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
}

ImGuiLayer::~ImGuiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

App::App(Scene scene)
    : window_(k_initial_width, k_initial_height, "Impulse testbed", true),
      imgui_(window_.get()),
      simulation_(std::move(scene)) {
  scene_panel_.builtin_names = builtin_scene_names();
  glfwSwapInterval(1);
  restarted();
}

void App::restarted() {
  drag_.forget();
  history_.clear();
  view_.reset(simulation_.world());
}

void App::load(const std::string& name_or_file) {
  try {
    simulation_.load(find_scene(name_or_file));
    scene_panel_.error.clear();
    restarted();
  } catch (const Error& e) {
    scene_panel_.error = e.what();
  }
}

void App::play(Replay replay) {
  replay_.emplace(std::move(replay));
  simulation_.paused = true;  // hidden meanwhile
  drag_.forget();
  view_.reset(replay_->world());
}

void App::close_replay() {
  replay_.reset();
  view_.reset(simulation_.world());
}

void App::record_steps(int steps) {
  if (steps > 0) history_.record(simulation_.world());
}

void App::apply(const SceneRequests& requests) {
  if (replay_ && (requests.load || requests.reset)) close_replay();
  if (requests.load) load(*requests.load);
  if (requests.reset) {
    simulation_.reset();
    restarted();
  }
  if (requests.step) {
    simulation_.step_once();
    record_steps(1);
  }
}

void App::apply(const ReplayRequests& requests) {
  if (requests.close) close_replay();
  if (!requests.open) return;
  try {
    play(load_replay(*requests.open));
    replay_panel_.error.clear();
  } catch (const Error& e) {
    replay_panel_.error = e.what();
  }
}

void App::handle_mouse(int width, int height) {
  const ImGuiIO& io = ImGui::GetIO();
  World& world = simulation_.world();
  const Ray ray = view_.camera.ray_through(io.MousePos.x, io.MousePos.y, width, height);
  if (!io.WantCaptureMouse) {
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left))
      orbiting_ = replay_ || !drag_.grab(world, ray, k_pick_range);  // a replay is only seen
    view_.camera.zoom(io.MouseWheel);
  }
  if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
    if (drag_.active()) drag_.move(world, ray);
    if (orbiting_) view_.camera.orbit(io.MouseDelta.x, io.MouseDelta.y);
  } else {
    drag_.release(world);
    orbiting_ = false;
  }
  const bool panning =
      ImGui::IsMouseDown(ImGuiMouseButton_Right) || ImGui::IsMouseDown(ImGuiMouseButton_Middle);
  if (panning && !io.WantCaptureMouse) view_.camera.pan(io.MouseDelta.x, io.MouseDelta.y, height);
}

void App::handle_keys(int width, int height) {
  if (ImGui::GetIO().WantCaptureKeyboard) return;
  if (replay_) {  // the same keys run the replay: play, a frame on, back to the start
    if (ImGui::IsKeyPressed(GLFW_KEY_P, false)) replay_->playing = !replay_->playing;
    if (ImGui::IsKeyPressed(GLFW_KEY_N)) replay_->seek(replay_->frame() + 1);
    if (ImGui::IsKeyPressed(GLFW_KEY_R, false)) replay_->seek(0);
    return;
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    shooter_.shoot(simulation_.world(), view_.camera.ray_through(mouse.x, mouse.y, width, height));
  }
  SceneRequests requests;
  if (ImGui::IsKeyPressed(GLFW_KEY_P, false)) simulation_.paused = !simulation_.paused;
  requests.step = ImGui::IsKeyPressed(GLFW_KEY_N);
  requests.reset = ImGui::IsKeyPressed(GLFW_KEY_R, false);
  apply(requests);
}

void App::run() {
  double last = glfwGetTime();
  LineBatch overlay;
  while (!glfwWindowShouldClose(window_.get())) {
    glfwPollEvents();
    const double now = glfwGetTime();
    const double frame_time = std::min(now - last, k_longest_frame);
    last = now;
    int width = 0, height = 0;
    glfwGetFramebufferSize(window_.get(), &width, &height);

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    handle_mouse(width, height);
    handle_keys(width, height);
    apply(scene_panel(scene_panel_, simulation_, drag_, shooter_));
    solver_panel(simulation_.world());
    apply(replay_panel(replay_panel_, replay_ ? &*replay_ : nullptr));
    debug_panel(view_.options);
    plots_panel(history_, simulation_.world());
    if (view_.options.feature_ids && !replay_)
      draw_feature_labels(simulation_.world().debug_contacts(), view_.camera);
    ImGui::Render();

    if (replay_)
      replay_->advance(frame_time);
    else
      record_steps(simulation_.advance(frame_time));

    overlay.clear();
    if (const auto drag = drag_.anchor_and_target(simulation_.world()))
      overlay.line(drag->first, drag->second, {1.0f, 1.0f, 1.0f});
    if (replay_)
      view_.draw(replay_->world(), replay_->contacts(), false, width, height, overlay);
    else
      view_.draw(simulation_.world(), simulation_.world().debug_contacts(), true, width, height,
                 overlay);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glfwSwapBuffers(window_.get());
  }
}

}  // namespace impulse::testbed
